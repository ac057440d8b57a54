#include "ops/silu.hpp"

#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

void reference(const Tensor& y) {
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i) element<float>(y, i, ri) = float(silu_of(element<float>(*y.src[0], i, ri)));
    });
}

}  // namespace

const OpDef ops::kSilu{.name = "silu", .reference = reference, .cost = elementwise_cost};

Tensor* silu(Tensor* x) { return unary_node(ops::kSilu, x); }

}  // namespace tessera
