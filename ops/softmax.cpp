#include "ops/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "graph/graph.hpp"
#include "kernels/cpu/softmax.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"

namespace tessera {

namespace {

// Entries of row ri that are not masked.
int64_t valid_count(const Tensor& y, RowIndex ri) {
    if (y.src.size() < 2) return y.ne[0];
    const int64_t pos = element<int32_t>(*y.src[1], ri.i1, {0, 0, 0});
    return std::clamp<int64_t>(pos + 1, 0, y.ne[0]);
}

void reference(const Tensor& y) {
    const Tensor& x = *y.src[0];
    const double scale = y.param<SoftmaxParams>().scale;
    for_each_row(y, [&](RowIndex ri) {
        const int64_t n = valid_count(y, ri);
        double max = -INFINITY;
        for (int64_t i = 0; i < n; ++i) max = std::max(max, scale * element<float>(x, i, ri));
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += std::exp(scale * element<float>(x, i, ri) - max);
        for (int64_t i = 0; i < y.ne[0]; ++i)
            element<float>(y, i, ri) = i < n ? float(std::exp(scale * element<float>(x, i, ri) - max) / sum) : 0.0f;
    });
}

void eval_cpu(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const float scale = y.param<SoftmaxParams>().scale;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::softmax(reinterpret_cast<const float*>(row_ptr(x, ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                     y.ne[0], scale, valid_count(y, ri), nullptr);
    });
}

OpCost cost(const Tensor& y) { return {.flops = 4.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements())}; }

const OpDef kSoftmax{.name = "softmax", .reference = reference, .eval_cpu = eval_cpu, .cost = cost};

}  // namespace

Tensor* softmax(Tensor* x, float scale, Tensor* positions) {
    Graph& g = positions ? graph_of({x, positions}, "softmax") : graph_of({x}, "softmax");
    check::type("softmax", *x, GgmlType::F32);
    check::rows_contiguous("softmax", *x);
    check::that(std::isfinite(scale), "softmax", "scale must be finite");
    std::vector<Tensor*> src{x};
    if (positions != nullptr) {
        check::type("softmax", *positions, GgmlType::I32);
        check::that(positions->n_dims() == 1 && positions->ne[0] == x->ne[1] && positions->is_contiguous(),
                    "softmax", [&] { return "positions " + describe(*positions) + " must hold one position per row of " +
                                   describe(*x); });
        src.push_back(positions);
    }
    return g.add_node(kSoftmax, GgmlType::F32, x->ne, std::move(src), SoftmaxParams{scale});
}

}  // namespace tessera
