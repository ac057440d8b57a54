#include "ops/get_rows.hpp"

#include "graph/graph.hpp"
#include "kernels/cpu/convert.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"
#include "support/error.hpp"

namespace tessera {

namespace {

// The table row of output row ri, checked: ids come from user data.
const char* table_row(const Tensor& y, RowIndex ri) {
    const Tensor& table = *y.src[0];
    const int32_t id = element<int32_t>(*y.src[1], ri.i1, {0, 0, 0});
    if (id < 0 || id >= table.ne[1])
        throw Error("get_rows: id " + std::to_string(id) + " is outside " + describe(table));
    return table.row(id);
}

void reference(const Tensor& y) {
    const QuantTypeEntry& type = require_quant_type(y.src[0]->type, y.src[0]->name);
    for_each_row(y, [&](RowIndex ri) {
        type.dequantize_row(table_row(y, ri), reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

void eval_cpu(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::convert_to_f32(y.src[0]->type, table_row(y, ri), reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

OpCost cost(const Tensor& y) {
    return {.bytes = double(y.src[0]->row_bytes() * size_t(y.ne[1])) + double(y.nbytes())};
}

const OpDef kGetRows{.name = "get_rows", .reference = reference, .eval_cpu = eval_cpu, .cost = cost};

}  // namespace

Tensor* get_rows(Tensor* table, Tensor* ids) {
    Graph& g = graph_of({table, ids}, "get_rows");
    require_quant_type(table->type, "get_rows table '" + table->name + "'");
    check::that(table->ne[2] == 1 && table->ne[3] == 1, "get_rows", [&] { return "table " + describe(*table) + " must be 2-D"; });
    check::rows_contiguous("get_rows", *table);
    check::type("get_rows", *ids, GgmlType::I32);
    check::that(ids->n_dims() == 1 && ids->is_contiguous(), "get_rows", [&] { return "ids " + describe(*ids) + " must be 1-D"; });
    return g.add_node(kGetRows, GgmlType::F32, {table->ne[0], ids->ne[0], 1, 1}, {table, ids});
}

}  // namespace tessera
