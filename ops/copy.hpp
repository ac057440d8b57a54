// copy(src, dst): dst = src converted to dst's type (F32 -> F32, F16 or any
// quant type); the same shape, any strides. It writes into existing storage
// (a KV cache, a preallocated buffer) and returns a tensor that aliases dst:
// read dst through it (or order later readers with after()) so the write
// happens first.
#pragma once

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kCopy;
}

Tensor* copy(Tensor* src, Tensor* dst);

}  // namespace tessera
