#include "ops/geglu.hpp"

#include <cmath>
#include <numbers>

#include "graph/graph.hpp"
#include "ops/common/check.hpp"
#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

double geglu_of(double gate, double up) {
    const double inner = std::sqrt(2.0 / std::numbers::pi) * (gate + 0.044715 * gate * gate * gate);
    return 0.5 * gate * (1.0 + std::tanh(inner)) * up;
}

}  // namespace

const OpDef ops::kGeglu{.name = "geglu", .reference = binary_reference<geglu_of>, .cost = elementwise_cost};

Tensor* geglu(Tensor* gate, Tensor* up) {
    graph_of({gate, up}, "geglu");
    check::same_shape("geglu", *gate, *up);
    return binary_node(ops::kGeglu, gate, up);
}

}  // namespace tessera
