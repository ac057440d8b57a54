#include "ops/get_rows.hpp"

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/common/check.hpp"
#include "support/error.hpp"

namespace tessera {

const char* get_rows_source(const Tensor& y, RowIndex ri) {
    const Tensor& table = *y.src[0];
    const int32_t id = element<int32_t>(*y.src[1], ri.i1, {0, 0, 0});
    if (id < 0 || id >= table.ne[1])
        throw Error("get_rows: id " + std::to_string(id) + " is outside " + describe(table));
    return table.row(id);
}

namespace {

void reference(const Tensor& y) {
    const QuantTypeEntry& type = require_quant_type(y.src[0]->type, y.src[0]->name);
    for_each_row(y, [&](RowIndex ri) {
        type.dequantize_row(get_rows_source(y, ri), reinterpret_cast<float*>(row_ptr(y, ri)), y.ne[0]);
    });
}

OpCost cost(const Tensor& y) {
    return {.bytes = double(y.src[0]->row_bytes() * size_t(y.ne[1])) + double(y.nbytes())};
}

}  // namespace

const OpDef ops::kGetRows{.name = "get_rows", .reference = reference, .cost = cost};

Tensor* get_rows(Tensor* table, Tensor* ids) {
    Graph& g = graph_of({table, ids}, "get_rows");
    require_quant_type(table->type, "get_rows table '" + table->name + "'");
    check::that(table->ne[2] == 1 && table->ne[3] == 1, "get_rows", [&] { return "table " + describe(*table) + " must be 2-D"; });
    check::rows_contiguous("get_rows", *table);
    check::type("get_rows", *ids, GgmlType::I32);
    check::that(ids->n_dims() == 1 && ids->is_contiguous(), "get_rows", [&] { return "ids " + describe(*ids) + " must be 1-D"; });
    return g.add_node(ops::kGetRows, GgmlType::F32, {table->ne[0], ids->ne[0], 1, 1}, {table, ids});
}

}  // namespace tessera
