#include "ops/scale.hpp"

#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

void reference(const Tensor& y) {
    const float s = y.param<ScaleParams>().s;
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i) element<float>(y, i, ri) = s * element<float>(*y.src[0], i, ri);
    });
}

}  // namespace

const OpDef ops::kScale{.name = "scale", .reference = reference, .cost = elementwise_cost};

Tensor* scale(Tensor* x, float s) { return unary_node(ops::kScale, x, ScaleParams{s}); }

}  // namespace tessera
