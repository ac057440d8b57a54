#include "ops/matmul.hpp"

#include <vector>

#include "graph/graph.hpp"
#include "kernels/cpu/arith.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"

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

cpu::MatmulArgs args(const Tensor& y, int64_t i2, int64_t i3) {
    const Tensor& w = *y.src[0];
    const Tensor& x = *y.src[1];
    return {.weight_type = w.type,
            .w = w.data,
            .w_stride = w.nb[1],
            .x = reinterpret_cast<const float*>(x.row(0, i2, i3)),
            .x_stride = x.nb[1],
            .y = reinterpret_cast<float*>(y.row(0, i2, i3)),
            .y_stride = y.nb[1],
            .n = w.ne[1],
            .k = w.ne[0],
            .m = x.ne[1],
            .activations = y.param<ActivationPrecision>()};
}

void eval_cpu(const Tensor& y, const CpuContext& ctx) {
    // Each (i2, i3) batch is one product; every thread takes part in each.
    for (int64_t i3 = 0; i3 < y.ne[3]; ++i3)
        for (int64_t i2 = 0; i2 < y.ne[2]; ++i2) {
            if (i2 + i3 > 0) ctx.team.barrier();  // the work buffer is reused
            cpu::matmul(args(y, i2, i3), ctx.work, ctx.team);
        }
    if (y.src.size() > 2) {
        const Tensor& plus = *y.src[2];
        ctx.team.barrier();
        for_my_rows(y, ctx.team, [&](RowIndex ri) {
            auto* row = reinterpret_cast<float*>(row_ptr(y, ri));
            cpu::add(row, reinterpret_cast<const float*>(row_ptr(plus, repeated(plus, ri))), row, y.ne[0]);
        });
    }
}

size_t work_bytes(const Tensor& y, int n_threads) {
    return cpu::matmul_work_bytes(y.src[0]->type, y.src[0]->ne[0], y.ne[1], y.param<ActivationPrecision>(), n_threads);
}

OpCost cost(const Tensor& y) {
    const Tensor& w = *y.src[0];
    const double rows = double(y.nrows());
    return {.flops = 2.0 * double(w.ne[0]) * double(w.ne[1]) * rows,
            .bytes = double(w.nbytes()) + 4.0 * double(w.ne[0]) * rows +
                     double(y.nbytes()) * (y.src.size() > 2 ? 2 : 1)};  // y, and the addend
}

const OpDef kMatmul{.name = "matmul",
                    .reference = reference,
                    .eval_cpu = eval_cpu,
                    .cpu_work_bytes = work_bytes,
                    .cost = cost};

}  // namespace

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
    if (!plus) return g.add_node(kMatmul, GgmlType::F32, shape, {w, x}, precision);
    check::type("matmul", *plus, GgmlType::F32);
    check::rows_contiguous("matmul", *plus);
    check::that(check::repeats_over(shape, *plus) && plus->ne[0] == shape[0], "matmul",
                [&] { return "addend " + describe(*plus) + " cannot be repeated over the product's rows of " +
                    std::to_string(shape[0]); });
    return g.add_node(kMatmul, GgmlType::F32, shape, {w, x, plus}, precision);
}

}  // namespace tessera
