#include "ops/rope.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

// The node's per-pair frequency divisors (contiguous, n_rot/2 floats), or nullptr.
const float* freq_factors_of(const Tensor& y) {
    const Tensor* f = rope_freq_factors(y);
    return f ? reinterpret_cast<const float*>(row_ptr(*f, {0, 0, 0})) : nullptr;
}

void reference(const Tensor& y) {
    const Tensor& x = *y.src[0];
    const Tensor& pos = *y.src[1];
    const RopeParams& p = y.param<RopeParams>();
    const float* factors = freq_factors_of(y);
    const int64_t half = p.n_rot / 2;
    for_each_row(y, [&](RowIndex ri) {
        const double position = double(element<int32_t>(pos, ri.i2, {0, 0, 0})) * p.freq_scale;
        for (int64_t i = 0; i < x.ne[0]; ++i) element<float>(y, i, ri) = element<float>(x, i, ri);
        for (int64_t i = 0; i < half; ++i) {
            const double divisor = factors ? double(factors[i]) : 1.0;
            const double theta =
                position * std::pow(double(p.freq_base), -2.0 * double(i) / double(p.n_rot)) / divisor;
            const int64_t a = p.mode == RopeMode::Normal ? 2 * i : i;
            const int64_t b = p.mode == RopeMode::Normal ? 2 * i + 1 : i + half;
            const double x0 = element<float>(x, a, ri), x1 = element<float>(x, b, ri);
            const double c = p.attn_factor * std::cos(theta), s = p.attn_factor * std::sin(theta);
            element<float>(y, a, ri) = float(x0 * c - x1 * s);
            element<float>(y, b, ri) = float(x0 * s + x1 * c);
        }
    });
}

OpCost cost(const Tensor& y) { return {.flops = 6.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements())}; }

}  // namespace

const OpDef ops::kRope{.name = "rope", .reference = reference, .cost = cost};

Tensor* rope(Tensor* x, Tensor* positions, const RopeParams& params, Tensor* freq_factors) {
    Graph& g = freq_factors ? graph_of({x, positions, freq_factors}, "rope") : graph_of({x, positions}, "rope");
    check::type("rope", *x, GgmlType::F32);
    check::type("rope", *positions, GgmlType::I32);
    check::that(x->nb[0] == 4 && x->nb[1] == size_t(4 * x->ne[0]), "rope",
                [&] { return describe(*x) + ": the heads of a token must be contiguous"; });
    check::that(x->ne[3] == 1, "rope", [&] { return describe(*x) + " must be [head_dim, n_head, n_tokens]"; });
    check::that(positions->n_dims() == 1 && positions->ne[0] == x->ne[2] && positions->is_contiguous(), "rope",
                [&] { return "positions " + describe(*positions) + " must hold one position per token of " + describe(*x); });
    check::that(params.n_rot > 0 && params.n_rot % 2 == 0 && params.n_rot <= x->ne[0], "rope",
                [&] { return "n_rot = " + std::to_string(params.n_rot) + " must be even and at most head_dim = " +
                    std::to_string(x->ne[0]); });
    check::that(params.freq_base > 0 && params.freq_scale > 0, "rope", "freq_base and freq_scale must be > 0");
    check::that(std::isfinite(params.attn_factor) && params.attn_factor > 0, "rope", "attn_factor must be finite and > 0");
    std::vector<Tensor*> src{x, positions};
    if (freq_factors) {
        check::type("rope", *freq_factors, GgmlType::F32);
        check::that(freq_factors->is_contiguous() && freq_factors->nelements() == params.n_rot / 2, "rope", [&] {
            return "freq_factors " + describe(*freq_factors) +
                   " must be contiguous, one divisor per rotated pair (n_rot/2 = " + std::to_string(params.n_rot / 2) +
                   " values)";
        });
        src.push_back(freq_factors);
    }
    return g.add_node(ops::kRope, GgmlType::F32, x->ne, std::move(src), params);
}

}  // namespace tessera
