#include "ops/mul.hpp"

#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

double times(double a, double b) { return a * b; }

}  // namespace

const OpDef ops::kMul{.name = "mul", .reference = binary_reference<times>, .cost = elementwise_cost};

Tensor* mul(Tensor* a, Tensor* b) { return binary_node(ops::kMul, a, b); }

}  // namespace tessera
