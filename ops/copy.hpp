// Writes into existing storage (a KV cache, a preallocated buffer). Both
// return a tensor that aliases the destination; read the destination through
// it (or order later readers with after()) so the write happens first.
//   copy(src, dst)            dst = src converted to dst's type (F32 -> F32,
//                             F16 or any quant type); same shape, any strides
//   set_rows(dst, src, rows)  dst row rows[i] = src row i (converted), for
//                             every (i2, i3): appending tokens to a cache
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

Tensor* copy(Tensor* src, Tensor* dst);
Tensor* set_rows(Tensor* dst, Tensor* src, Tensor* rows);

}  // namespace tessera
