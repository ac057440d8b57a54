#include "ops/attention.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "kernels/quant/half.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

double kv_value(const Tensor& t, int64_t i0, int64_t pos, int64_t head, int64_t seq) {
    const char* p = t.row(pos, head, seq) + i0 * t.nb[0];
    return t.type == GgmlType::F16 ? fp16_to_fp32(*reinterpret_cast<const uint16_t*>(p))
                                   : *reinterpret_cast<const float*>(p);
}

void reference(const Tensor& out) {
    const Tensor& q = *out.src[0];
    const Tensor& k = *out.src[1];
    const Tensor& v = *out.src[2];
    const Tensor& pos = *out.src[3];
    const AttentionParams& params = out.param<AttentionParams>();
    const int64_t head_dim = q.ne[0], group = q.ne[1] / k.ne[2], n_rows = k.ne[1];
    std::vector<double> p;
    // Query i of head h of sequence b.
    auto attend = [&](int64_t b, int64_t i, int64_t h) {
        const int64_t g = h / group;
        const AttentionSpan span = attention_span(element<int32_t>(pos, i, {b, 0, 0}), n_rows, params.window);
        const int64_t n = std::max<int64_t>(span.last - span.first + 1, 0);
        auto row = [&](int64_t t) { return (span.first + t) % n_rows; };
        p.assign(size_t(n), 0.0);
        double max = -INFINITY, sum = 0;
        for (int64_t t = 0; t < n; ++t) {
            double dot = 0;
            for (int64_t d = 0; d < head_dim; ++d) dot += element<float>(q, d, {h, i, b}) * kv_value(k, d, row(t), g, b);
            double s = params.scale * dot;
            if (params.softcap > 0) s = params.softcap * std::tanh(s / params.softcap);
            p[size_t(t)] = s;
            max = std::max(max, s);
        }
        for (double& x : p) sum += (x = std::exp(x - max));
        for (int64_t d = 0; d < head_dim; ++d) {
            double acc = 0;
            for (int64_t t = 0; t < n; ++t) acc += p[size_t(t)] * kv_value(v, d, row(t), g, b);
            element<float>(out, d, {h, i, b}) = n > 0 ? float(acc / sum) : 0.0f;
        }
    };
    for (int64_t b = 0; b < q.ne[3]; ++b)
        for (int64_t i = 0; i < q.ne[2]; ++i)
            for (int64_t h = 0; h < q.ne[1]; ++h) attend(b, i, h);
}

// Causal work: about half of n_q x n_rows score pairs for a prompt, all for
// one token; a window shorter than the rows bounds each query's share.
OpCost cost(const Tensor& out) {
    const Tensor& q = *out.src[0];
    const Tensor& k = *out.src[1];
    const int64_t window = out.param<AttentionParams>().window;
    const double pairs = window > 0 && window < k.ne[1] ? double(q.ne[2]) * double(window)
                                                        : double(q.ne[2]) * double(k.ne[1]) * (q.ne[2] > 1 ? 0.5 : 1.0);
    return {.flops = 4.0 * pairs * double(q.ne[0]) * double(q.ne[1]) * double(q.ne[3]),
            .bytes = double(q.nbytes() + out.nbytes()) + double(k.nbytes() + out.src[2]->nbytes())};
}

}  // namespace

const OpDef ops::kAttention{.name = "attention", .reference = reference, .cost = cost};

Tensor* attention(Tensor* q, Tensor* k, Tensor* v, Tensor* positions, const AttentionParams& params) {
    Graph& g = graph_of({q, k, v, positions}, "attention");
    constexpr std::string_view op = "attention";
    check::type(op, *q, GgmlType::F32);
    check::that(k->type == GgmlType::F32 || k->type == GgmlType::F16, op, [&] { return describe(*k) + " must be F32 or F16"; });
    check::type(op, *v, k->type);
    for (const Tensor* t : {q, k, v}) check::rows_contiguous(op, *t);
    check::same_shape(op, *k, *v);
    check::that(k->ne[3] == q->ne[3], op, [&] { return describe(*q) + " and " + describe(*k) + " differ in the number of sequences (dimension 3)"; });
    check::dim(op, *k, 0, q->ne[0], "head_dim of " + q->name);
    check::that(k->ne[2] > 0 && q->ne[1] % k->ne[2] == 0, op,
                [&] { return "query heads (" + std::to_string(q->ne[1]) + ") must be a multiple of kv heads (" +
                    std::to_string(k->ne[2]) + ")"; });
    check::type(op, *positions, GgmlType::I32);
    check::that(positions->n_dims() <= 2 && positions->ne[0] == q->ne[2] && positions->ne[1] == q->ne[3] &&
                    positions->is_contiguous(),
                op, [&] { return "positions " + describe(*positions) + " must hold one position per query of " + describe(*q); });
    check::that(std::isfinite(params.scale), op, "scale must be finite");
    check::that(std::isfinite(params.softcap) && params.softcap >= 0, op, "softcap must be finite and not negative");
    check::that(params.window >= 0, op, "window must not be negative");
    return g.add_node(ops::kAttention, GgmlType::F32, q->ne, {q, k, v, positions}, params);
}

}  // namespace tessera
