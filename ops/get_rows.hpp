// get_rows(table, ids): rows ids[i] of table [n, rows] of any quant type,
// dequantized to F32 [n, len(ids)]: the embedding lookup.
#pragma once

#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kGetRows;
}

// The table row that output row ri of a get_rows node copies; throws an
// Error for an id outside the table (ids come from user data).
const char* get_rows_source(const Tensor& node, RowIndex ri);

Tensor* get_rows(Tensor* table, Tensor* ids);

}  // namespace tessera
