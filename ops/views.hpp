// Views: new shapes and strides over an existing tensor's storage, no copy.
#pragma once

#include <array>

#include "graph/tensor.hpp"

namespace tessera {

// ne/nb over t's storage starting `offset` bytes in; must stay inside t.
Tensor* view(Tensor* t, Shape ne, Strides nb, size_t offset = 0);
// Same values in a new shape; t must be contiguous.
Tensor* reshape(Tensor* t, Shape ne);
// Result dimension d is t's dimension axes[d] (numpy order).
Tensor* permute(Tensor* t, std::array<int, kMaxDims> axes);
// Swaps dimensions 0 and 1.
Tensor* transpose(Tensor* t);
// Rows [first, first + count) of dimension 1.
Tensor* slice_rows(Tensor* t, int64_t first, int64_t count);

}  // namespace tessera
