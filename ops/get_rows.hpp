// get_rows(table, ids): rows ids[i] of table [n, rows] of any quant type,
// dequantized to F32 [n, len(ids)]: the embedding lookup.
#pragma once

#include "graph/tensor.hpp"

namespace tessera {

Tensor* get_rows(Tensor* table, Tensor* ids);

}  // namespace tessera
