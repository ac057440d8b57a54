// transfer(x): a dense copy of x. The executor inserts one where a node reads
// a tensor that another backend stored; models never build it. It is a graph
// concept rather than an op of ops/, but it is defined like one (an OpDef,
// ops::kTransfer) so that each backend registers its kernel for it the way
// it does for every op.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kTransfer;
}

Tensor* transfer(Tensor* x);

}  // namespace tessera
