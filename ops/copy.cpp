#include "ops/copy.hpp"

#include "graph/graph.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"
#include "ops/common/destination.hpp"

namespace tessera {

namespace {

// src[0] = source, src[1] = destination (aliased by the node).
void reference(const Tensor& y) {
    for_each_row(y, [&](RowIndex ri) {
        store_reference(y, reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), row_ptr(y, ri));
    });
}

OpCost cost(const Tensor& y) { return {.bytes = double(y.src[0]->nbytes() + y.nbytes())}; }

}  // namespace

const OpDef ops::kCopy{.name = "copy", .alias_src = 1, .reference = reference, .cost = cost};

Tensor* copy(Tensor* src, Tensor* dst) {
    Graph& g = graph_of({src, dst}, "copy");
    check::type("copy", *src, GgmlType::F32);
    check::rows_contiguous("copy", *src);
    check_destination("copy", *dst);
    check::same_shape("copy", *src, *dst);
    return g.add_node(ops::kCopy, dst->type, dst->ne, dst->nb, {src, dst});
}

}  // namespace tessera
