#include "ops/matmul_id.hpp"

#include <vector>

#include "graph/graph.hpp"
#include "graph/row_loop.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

// Exact: weights dequantized, products summed in double.
void reference(const Tensor& y) {
    const Tensor& w = *y.src[0];
    const Tensor& x = *y.src[1];
    const Tensor& ids = *y.src[2];
    const QuantTypeEntry& type = require_quant_type(w.type, w.name);
    const int64_t k = w.ne[0];
    std::vector<float> wrow(size_t(k), 0.0f);
    for (int64_t t = 0; t < y.ne[2]; ++t)
        for (int64_t j = 0; j < y.ne[1]; ++j) {
            const int64_t e = element<int32_t>(ids, j, {t, 0, 0});
            const RowIndex xr{x.ne[1] == 1 ? 0 : j, t, 0};
            for (int64_t r = 0; r < w.ne[1]; ++r) {
                type.dequantize_row(w.row(r, e), wrow.data(), k);
                double sum = 0;
                for (int64_t i = 0; i < k; ++i) sum += double(wrow[size_t(i)]) * element<float>(x, i, xr);
                element<float>(y, r, {j, t, 0}) = float(sum);
            }
        }
}

// The chosen experts' weights are read once per token and slot at most: a
// prompt batch that shares experts reads them once (kernel), which this
// upper bound does not model.
OpCost cost(const Tensor& y) {
    const Tensor& w = *y.src[0];
    const double slots = double(y.ne[1]) * double(y.ne[2]);
    const double expert_bytes = double(w.nbytes()) / double(w.ne[2]);
    return {.flops = 2.0 * double(w.ne[0]) * double(w.ne[1]) * slots,
            .bytes = expert_bytes * std::min(slots, double(w.ne[2])) + double(y.src[1]->nbytes()) + double(y.nbytes())};
}

}  // namespace

const OpDef ops::kMatmulId{.name = "matmul_id", .reference = reference, .cost = cost};

Tensor* matmul_id(Tensor* w, Tensor* x, Tensor* ids, ActivationPrecision precision) {
    Graph& g = graph_of({w, x, ids}, "matmul_id");
    constexpr std::string_view op = "matmul_id";
    require_quant_type(w->type, "matmul_id weight '" + w->name + "'");
    check::that(cpu::matmul_supports(w->type), op,
                [&] { return "no CPU matmul kernel for weight type " + std::string(ggml_type_traits(w->type).name); });
    check::type(op, *x, GgmlType::F32);
    check::type(op, *ids, GgmlType::I32);
    check::rows_contiguous(op, *w);
    check::rows_contiguous(op, *x);
    check::rows_contiguous(op, *ids);
    check::that(w->ne[3] == 1 && w->nb[2] == w->nb[1] * size_t(w->ne[1]), op,
                [&] { return "weights " + describe(*w) + " must be 3-D with contiguous experts"; });
    check::that(w->ne[0] == x->ne[0], op,
                [&] { return "weights " + describe(*w) + " and input " + describe(*x) + " differ in dimension 0"; });
    check::that(ids->ne[2] == 1 && ids->ne[3] == 1 && x->ne[3] == 1 && x->ne[2] == ids->ne[1] &&
                    (x->ne[1] == 1 || x->ne[1] == ids->ne[0]),
                op, [&] { return "input " + describe(*x) + " must be [k_in, 1 or slots, n] for ids " + describe(*ids); });
    return g.add_node(ops::kMatmulId, GgmlType::F32, {w->ne[1], ids->ne[0], ids->ne[1], 1}, {w, x, ids}, precision);
}

}  // namespace tessera
