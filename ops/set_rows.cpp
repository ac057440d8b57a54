#include "ops/set_rows.hpp"

#include <string>

#include "graph/graph.hpp"
#include "ops/common/check.hpp"
#include "ops/common/destination.hpp"
#include "support/error.hpp"

namespace tessera {

// src[0] = destination (aliased by the node), src[1] = rows to write, src[2] = their row ids.
std::optional<RowIndex> set_rows_destination(const Tensor& y, RowIndex ri) {
    const Tensor& rows = *y.src[2];
    const int32_t row = element<int32_t>(rows, ri.i1, {rows.ne[1] > 1 ? ri.i3 : 0, 0, 0});
    if (row < 0) return std::nullopt;
    if (row >= y.ne[1]) throw Error("set_rows: row " + std::to_string(row) + " is outside " + describe(*y.src[0]));
    return RowIndex{row, ri.i2, ri.i3};
}

namespace {

void reference(const Tensor& y) {
    const Tensor& src = *y.src[1];
    for_each_row(src, [&](RowIndex ri) {
        if (const auto to = set_rows_destination(y, ri))
            store_reference(y, reinterpret_cast<const float*>(row_ptr(src, ri)), row_ptr(y, *to));
    });
}

OpCost cost(const Tensor& y) {
    const Tensor& src = *y.src[1];
    return {.bytes = double(src.nbytes()) + double(y.row_bytes() * size_t(src.nrows()))};
}

}  // namespace

const OpDef ops::kSetRows{.name = "set_rows", .alias_src = 0, .reference = reference, .cost = cost};

Tensor* set_rows(Tensor* dst, Tensor* src, Tensor* rows) {
    Graph& g = graph_of({dst, src, rows}, "set_rows");
    check::type("set_rows", *src, GgmlType::F32);
    check::rows_contiguous("set_rows", *src);
    check_destination("set_rows", *dst);
    check::type("set_rows", *rows, GgmlType::I32);
    check::dim("set_rows", *src, 0, dst->ne[0], "the row length of " + dst->name);
    check::that(src->ne[2] == dst->ne[2] && src->ne[3] == dst->ne[3], "set_rows",
                [&] { return describe(*src) + " and " + describe(*dst) + " differ in dimensions 2 and 3"; });
    check::that(rows->n_dims() <= 2 && rows->ne[0] == src->ne[1] && (rows->ne[1] == 1 || rows->ne[1] == src->ne[3]) &&
                    rows->is_contiguous(),
                "set_rows", [&] {
                    return "rows " + describe(*rows) + " must hold one row id per row of " + describe(*src) +
                           " (for every i3, or for each)";
                });
    return g.add_node(ops::kSetRows, dst->type, dst->ne, dst->nb, {dst, src, rows});
}

}  // namespace tessera
