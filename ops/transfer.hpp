// transfer(x): a dense copy of x, made by the executor where a node reads a
// tensor that another backend stored.
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

Tensor* transfer(Tensor* x);

}  // namespace tessera
