#include "ops/swiglu.hpp"

#include "graph/graph.hpp"
#include "ops/common/check.hpp"
#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

double swiglu_of(double gate, double up) { return silu_of(gate) * up; }

}  // namespace

const OpDef ops::kSwiglu{.name = "swiglu", .reference = binary_reference<swiglu_of>, .cost = elementwise_cost};

Tensor* swiglu(Tensor* gate, Tensor* up) {
    graph_of({gate, up}, "swiglu");
    check::same_shape("swiglu", *gate, *up);
    return binary_node(ops::kSwiglu, gate, up);
}

}  // namespace tessera
