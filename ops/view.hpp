// Views: new shapes and strides over an existing tensor's storage, no copy.
// view, reshape and slice_rows make nodes of op view; permute.hpp has the
// other view op.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kView;
}

// ne/nb over t's storage starting `offset` bytes in; must stay inside t.
Tensor* view(Tensor* t, Shape ne, Strides nb, size_t offset = 0);
// Same values in a new shape; t must be contiguous.
Tensor* reshape(Tensor* t, Shape ne);
// Rows [first, first + count) of dimension 1.
Tensor* slice_rows(Tensor* t, int64_t first, int64_t count);

}  // namespace tessera
