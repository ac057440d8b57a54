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
    const float eps = y.param<RmsNormParams>().eps;
    for_each_row(y, [&](RowIndex ri) {
        double sum = 0;
        for (int64_t i = 0; i < x.ne[0]; ++i) sum += double(element<float>(x, i, ri)) * element<float>(x, i, ri);
        const double scale = 1.0 / std::sqrt(sum / double(x.ne[0]) + eps);
        for (int64_t i = 0; i < x.ne[0]; ++i) element<float>(y, i, ri) = float(element<float>(x, i, ri) * scale);
    });
}

void eval_cpu(const Tensor& y, const CpuContext& ctx) {
    const Tensor& x = *y.src[0];
    const float eps = y.param<RmsNormParams>().eps;
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::rms_norm(reinterpret_cast<const float*>(row_ptr(x, ri)), reinterpret_cast<float*>(row_ptr(y, ri)),
                      x.ne[0], eps);
    });
}

OpCost cost(const Tensor& y) { return {.flops = 3.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements())}; }

const OpDef kRmsNorm{.name = "rms_norm", .reference = reference, .eval_cpu = eval_cpu, .cost = cost};

}  // namespace

Tensor* rms_norm(Tensor* x, float eps) {
    Graph& g = graph_of({x}, "rms_norm");
    check::type("rms_norm", *x, GgmlType::F32);
    check::rows_contiguous("rms_norm", *x);
    check::that(eps >= 0 && std::isfinite(eps), "rms_norm", "eps must be finite and >= 0");
    return g.add_node(kRmsNorm, GgmlType::F32, x->ne, {x}, RmsNormParams{eps});
}

}  // namespace tessera
