// set_rows(dst, src, rows): dst row rows[i] = src row i converted to dst's
// type, for every (i2, i3): appending tokens to a cache. rows is I32 [r],
// the same ids for every i3, or [r, ne3], ids of their own for each i3 (the
// sequences of a batch, each with its own cache). A negative id writes
// nothing (an idle sequence of a batch). Like copy() it writes into existing
// storage and returns a tensor that aliases dst.
#pragma once

#include <optional>

#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "graph/tensor.hpp"

namespace tessera {

namespace ops {
extern const OpDef kSetRows;
}

Tensor* set_rows(Tensor* dst, Tensor* src, Tensor* rows);

// The destination row that row ri of a set_rows node's source goes to;
// nullopt for a negative id; throws an Error for an id beyond the destination.
std::optional<RowIndex> set_rows_destination(const Tensor& node, RowIndex ri);

}  // namespace tessera
