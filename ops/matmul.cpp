#include "ops/matmul.hpp"

#include <vector>

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
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
    const Tensor* plus = y.src.size() > 2 ? y.src[2] : nullptr;
    const QuantTypeEntry& type = require_quant_type(w.type, w.name);
    const int64_t k = w.ne[0];
    std::vector<float> wrow(size_t(k), 0.0f);
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t j = 0; j < w.ne[1]; ++j) {
            type.dequantize_row(w.row(j), wrow.data(), k);
            double sum = 0;
            for (int64_t i0 = 0; i0 < k; ++i0) sum += double(wrow[size_t(i0)]) * element<float>(x, i0, ri);
            if (plus) sum += element<float>(*plus, j, repeated(*plus, ri));
            element<float>(y, j, ri) = float(sum);
        }
    });
}

OpCost cost(const Tensor& y) {
    const Tensor& w = *y.src[0];
    const double rows = double(y.nrows());
    return {.flops = 2.0 * double(w.ne[0]) * double(w.ne[1]) * rows,
            .bytes = double(w.nbytes()) + 4.0 * double(w.ne[0]) * rows +
                     double(y.nbytes()) * (y.src.size() > 2 ? 2 : 1)};  // y, and the addend
}

}  // namespace

const OpDef ops::kMatmul{.name = "matmul", .reference = reference, .cost = cost};

Tensor* matmul(Tensor* w, Tensor* x, ActivationPrecision precision, Tensor* plus) {
    Graph& g = plus ? graph_of({w, x, plus}, "matmul") : graph_of({w, x}, "matmul");
    require_quant_type(w->type, "matmul weight '" + w->name + "'");
    check::that(cpu::matmul_supports(w->type), "matmul",
                [&] { return "no CPU matmul kernel for weight type " + std::string(ggml_type_traits(w->type).name); });
    check::type("matmul", *x, GgmlType::F32);
    check::that(w->ne[2] == 1 && w->ne[3] == 1, "matmul", [&] { return "weight " + describe(*w) + " must be 2-D"; });
    check::rows_contiguous("matmul", *w);
    check::rows_contiguous("matmul", *x);
    check::that(w->ne[0] == x->ne[0], "matmul",
                [&] { return "weight " + describe(*w) + " and input " + describe(*x) + " differ in dimension 0 (k)"; });
    const Shape shape{w->ne[1], x->ne[1], x->ne[2], x->ne[3]};
    if (!plus) return g.add_node(ops::kMatmul, GgmlType::F32, shape, {w, x}, precision);
    check::type("matmul", *plus, GgmlType::F32);
    check::rows_contiguous("matmul", *plus);
    check::that(check::repeats_over(shape, *plus) && plus->ne[0] == shape[0], "matmul",
                [&] { return "addend " + describe(*plus) + " cannot be repeated over the product's rows of " +
                    std::to_string(shape[0]); });
    return g.add_node(ops::kMatmul, GgmlType::F32, shape, {w, x, plus}, precision);
}

}  // namespace tessera
