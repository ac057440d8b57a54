#include "ops/copy.hpp"

#include "graph/graph.hpp"
#include "kernels/cpu/convert.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"
#include "support/error.hpp"

namespace tessera {

namespace {

// Converts one F32 row into a row of dst's type.
void store_reference(const Tensor& dst, const float* src, char* out) {
    require_quant_type(dst.type, dst.name).quantize_row(src, out, dst.ne[0]);
}

const float* f32_row(const Tensor& t, RowIndex ri) { return reinterpret_cast<const float*>(row_ptr(t, ri)); }

// copy: src[0] = source, src[1] = destination (aliased by the node).
void copy_reference(const Tensor& y) {
    for_each_row(y, [&](RowIndex ri) { store_reference(y, f32_row(*y.src[0], ri), row_ptr(y, ri)); });
}
void copy_cpu(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team,
                [&](RowIndex ri) { cpu::convert_f32_to(y.type, f32_row(*y.src[0], ri), row_ptr(y, ri), y.ne[0]); });
}

OpCost copy_cost(const Tensor& y) { return {.bytes = double(y.src[0]->nbytes() + y.nbytes())}; }

const OpDef kCopy{
    .name = "copy", .alias_src = 1, .reference = copy_reference, .eval_cpu = copy_cpu, .cost = copy_cost};

// set_rows: src[0] = destination (aliased), src[1] = rows to write, src[2] = their row ids.
RowIndex destination_row(const Tensor& y, RowIndex ri) {
    const int32_t row = element<int32_t>(*y.src[2], ri.i1, {0, 0, 0});
    if (row < 0 || row >= y.ne[1])
        throw Error("set_rows: row " + std::to_string(row) + " is outside " + describe(*y.src[0]));
    return {row, ri.i2, ri.i3};
}
void set_rows_reference(const Tensor& y) {
    const Tensor& src = *y.src[1];
    for_each_row(src, [&](RowIndex ri) { store_reference(y, f32_row(src, ri), row_ptr(y, destination_row(y, ri))); });
}
void set_rows_cpu(const Tensor& y, const CpuContext& ctx) {
    const Tensor& src = *y.src[1];
    for_my_rows(src, ctx.team, [&](RowIndex ri) {
        cpu::convert_f32_to(y.type, f32_row(src, ri), row_ptr(y, destination_row(y, ri)), y.ne[0]);
    });
}
OpCost set_rows_cost(const Tensor& y) {
    const Tensor& src = *y.src[1];
    return {.bytes = double(src.nbytes()) + double(y.row_bytes() * size_t(src.nrows()))};
}

const OpDef kSetRows{.name = "set_rows",
                     .alias_src = 0,
                     .reference = set_rows_reference,
                     .eval_cpu = set_rows_cpu,
                     .cost = set_rows_cost};

void check_destination(std::string_view op, const Tensor& dst) {
    require_quant_type(dst.type, std::string(op) + " destination '" + dst.name + "'");
    check::rows_contiguous(op, dst);
    check::that(dst.storage_root()->leaf != LeafKind::Weight, op, [&] { return "cannot write into weight " + describe(dst); });
}

}  // namespace

Tensor* copy(Tensor* src, Tensor* dst) {
    Graph& g = graph_of({src, dst}, "copy");
    check::type("copy", *src, GgmlType::F32);
    check::rows_contiguous("copy", *src);
    check_destination("copy", *dst);
    check::same_shape("copy", *src, *dst);
    return g.add_node(kCopy, dst->type, dst->ne, dst->nb, {src, dst});
}

Tensor* set_rows(Tensor* dst, Tensor* src, Tensor* rows) {
    Graph& g = graph_of({dst, src, rows}, "set_rows");
    check::type("set_rows", *src, GgmlType::F32);
    check::rows_contiguous("set_rows", *src);
    check_destination("set_rows", *dst);
    check::type("set_rows", *rows, GgmlType::I32);
    check::dim("set_rows", *src, 0, dst->ne[0], "the row length of " + dst->name);
    check::that(src->ne[2] == dst->ne[2] && src->ne[3] == dst->ne[3], "set_rows",
                [&] { return describe(*src) + " and " + describe(*dst) + " differ in dimensions 2 and 3"; });
    check::that(rows->n_dims() == 1 && rows->ne[0] == src->ne[1] && rows->is_contiguous(), "set_rows",
                [&] { return "rows " + describe(*rows) + " must hold one row id per row of " + describe(*src); });
    return g.add_node(kSetRows, dst->type, dst->ne, dst->nb, {dst, src, rows});
}

}  // namespace tessera
