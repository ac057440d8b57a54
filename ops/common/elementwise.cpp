#include "ops/common/elementwise.hpp"

#include "graph/graph.hpp"
#include "ops/common/check.hpp"

namespace tessera {

Tensor* binary_node(const OpDef& op, Tensor* a, Tensor* b) {
    Graph& g = graph_of({a, b}, op.name);
    check::type(op.name, *a, GgmlType::F32);
    check::type(op.name, *b, GgmlType::F32);
    check::rows_contiguous(op.name, *a);
    check::rows_contiguous(op.name, *b);
    check::dim(op.name, *b, 0, a->ne[0], "the row length of " + a->name);
    check::broadcastable(op.name, *a, *b);
    return g.add_node(op, GgmlType::F32, a->ne, {a, b});
}

Tensor* unary_node(const OpDef& op, Tensor* x, std::any params) {
    Graph& g = graph_of({x}, op.name);
    check::type(op.name, *x, GgmlType::F32);
    check::rows_contiguous(op.name, *x);
    return g.add_node(op, GgmlType::F32, x->ne, {x}, std::move(params));
}

OpCost elementwise_cost(const Tensor& y) {
    return {.flops = double(y.nelements()), .bytes = 4.0 * double(y.nelements()) * double(y.src.size() + 1)};
}

}  // namespace tessera
