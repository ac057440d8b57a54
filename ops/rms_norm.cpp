#include "ops/rms_norm.hpp"

#include <cmath>

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

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

OpCost cost(const Tensor& y) {
    const double weight_bytes = y.src.size() > 1 ? 4.0 * double(y.ne[0]) : 0.0;
    return {.flops = 4.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements()) + weight_bytes};
}

}  // namespace

const OpDef ops::kRmsNorm{.name = "rms_norm", .reference = reference, .cost = cost};

Tensor* rms_norm(Tensor* x, float eps, Tensor* weight) {
    Graph& g = weight ? graph_of({x, weight}, "rms_norm") : graph_of({x}, "rms_norm");
    check::type("rms_norm", *x, GgmlType::F32);
    check::rows_contiguous("rms_norm", *x);
    check::that(eps >= 0 && std::isfinite(eps), "rms_norm", "eps must be finite and >= 0");
    if (!weight) return g.add_node(ops::kRmsNorm, GgmlType::F32, x->ne, {x}, RmsNormParams{eps});
    check::type("rms_norm", *weight, GgmlType::F32);
    check::rows_contiguous("rms_norm", *weight);
    check::that(weight->nelements() == x->ne[0], "rms_norm",
                [&] { return "the weight must be one row of " + std::to_string(x->ne[0]) + " values, not " + describe(*weight); });
    return g.add_node(ops::kRmsNorm, GgmlType::F32, x->ne, {x, weight}, RmsNormParams{eps});
}

}  // namespace tessera
