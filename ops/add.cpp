#include "ops/add.hpp"

#include "ops/common/elementwise.hpp"

namespace tessera {

namespace {

double plus(double a, double b) { return a + b; }

}  // namespace

const OpDef ops::kAdd{.name = "add", .reference = binary_reference<plus>, .cost = elementwise_cost};

Tensor* add(Tensor* a, Tensor* b) { return binary_node(ops::kAdd, a, b); }

}  // namespace tessera
