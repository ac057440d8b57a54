#include "ops/softcap.hpp"

#include <cmath>

#include "ops/common/check.hpp"
#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

void reference(const Tensor& y) {
    const double cap = y.param<SoftcapParams>().cap;
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i)
            element<float>(y, i, ri) = float(cap * std::tanh(element<float>(*y.src[0], i, ri) / cap));
    });
}

}  // namespace

const OpDef ops::kSoftcap{.name = "softcap", .reference = reference, .cost = elementwise_cost};

Tensor* softcap(Tensor* x, float cap) {
    check::that(std::isfinite(cap) && cap > 0, "softcap", "cap must be finite and positive");
    return unary_node(ops::kSoftcap, x, SoftcapParams{cap});
}

}  // namespace tessera
