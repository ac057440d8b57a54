#include "ops/norm.hpp"

#include <cmath>

#include "graph/graph.hpp"
#include "kernels/cpu/rms_norm.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"

namespace tessera {

namespace {

void reference(const Tensor& y) {
    const Tensor& x = *y.src[0];
    const Tensor* w = y.src.size() > 1 ? y.src[1] : nullptr;
    const float eps = y.param<RmsNormParams>().eps;
    for_each_row(y, [&](RowIndex ri) {
        double sum = 0;
        for (int64_t i = 0; i < x.ne[0]; ++i) sum += double(element<float>(x, i, ri)) * element<float>(x, i, ri);
        const double scale = 1.0 / std::sqrt(sum / double(x.ne[0]) + eps);
        for (int64_t i = 0; i < x.ne[0]; ++i) {
            const float normed = float(element<float>(x, i, ri) * scale);
            element<float>(y, i, ri) = w ? normed * element<float>(*w, i, RowIndex{}) : normed;
        }
    });
}

void eval_cpu(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const float* w = y.src.size() > 1 ? static_cast<const float*>(y.src[1]->data) : nullptr;
    const float eps = y.param<RmsNormParams>().eps;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        const auto* xr = reinterpret_cast<const float*>(row_ptr(x, ri));
        auto* yr = reinterpret_cast<float*>(row_ptr(y, ri));
        if (w)
            cpu::rms_norm_mul(xr, w, yr, x.ne[0], eps);
        else
            cpu::rms_norm(xr, yr, x.ne[0], eps);
    });
}

OpCost cost(const Tensor& y) {
    const double weight_bytes = y.src.size() > 1 ? 4.0 * double(y.ne[0]) : 0.0;
    return {.flops = 4.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements()) + weight_bytes};
}

const OpDef kRmsNorm{.name = "rms_norm", .reference = reference, .eval_cpu = eval_cpu, .cost = cost};

}  // namespace

Tensor* rms_norm(Tensor* x, float eps, Tensor* weight) {
    Graph& g = weight ? graph_of({x, weight}, "rms_norm") : graph_of({x}, "rms_norm");
    check::type("rms_norm", *x, GgmlType::F32);
    check::rows_contiguous("rms_norm", *x);
    check::that(eps >= 0 && std::isfinite(eps), "rms_norm", "eps must be finite and >= 0");
    if (!weight) return g.add_node(kRmsNorm, GgmlType::F32, x->ne, {x}, RmsNormParams{eps});
    check::type("rms_norm", *weight, GgmlType::F32);
    check::rows_contiguous("rms_norm", *weight);
    check::that(weight->nelements() == x->ne[0], "rms_norm",
                [&] { return "the weight must be one row of " + std::to_string(x->ne[0]) + " values, not " + describe(*weight); });
    return g.add_node(kRmsNorm, GgmlType::F32, x->ne, {x, weight}, RmsNormParams{eps});
}

}  // namespace tessera
