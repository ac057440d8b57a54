// set_rows(dst, src, rows): dst row rows[i] = src row i converted to dst's
// type, for every (i2, i3): appending tokens to a cache. Like copy() it
// writes into existing storage and returns a tensor that aliases dst.
#pragma once

#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSetRows;
}

Tensor* set_rows(Tensor* dst, Tensor* src, Tensor* rows);

// The destination row that row ri of a set_rows node's source goes to;
// throws an Error for a row id outside the destination.
RowIndex set_rows_destination(const Tensor& node, RowIndex ri);

}  // namespace tessera
