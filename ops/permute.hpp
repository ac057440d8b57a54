// permute and transpose: t's dimensions in another order over t's storage,
// no copy (a view).
#pragma once

#include <array>

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kPermute;
}

// Result dimension d is t's dimension axes[d] (numpy order).
Tensor* permute(Tensor* t, std::array<int, kMaxDims> axes);
// Swaps dimensions 0 and 1.
Tensor* transpose(Tensor* t);

}  // namespace tessera
