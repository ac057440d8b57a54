#include "ops/topk.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "graph/graph.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

void reference(const Tensor& y) {
    const Tensor& x = *y.src[0];
    std::vector<int32_t> order(size_t(x.ne[0]));
    for_each_row(y, [&](RowIndex ri) {
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](int32_t a, int32_t b) { return element<float>(x, a, ri) > element<float>(x, b, ri); });
        for (int64_t j = 0; j < y.ne[0]; ++j) element<int32_t>(y, j, ri) = order[size_t(j)];
    });
}

OpCost cost(const Tensor& y) {
    const Tensor& x = *y.src[0];
    return {.flops = double(x.nelements()) * double(y.ne[0]), .bytes = double(x.nbytes() + y.nbytes())};
}

}  // namespace

const OpDef ops::kTopk{.name = "topk", .reference = reference, .cost = cost};

Tensor* topk(Tensor* x, int64_t k) {
    Graph& g = graph_of({x}, "topk");
    check::type("topk", *x, GgmlType::F32);
    check::rows_contiguous("topk", *x);
    check::that(k >= 1 && k <= x->ne[0], "topk",
                [&] { return "k = " + std::to_string(k) + " must be in [1, " + std::to_string(x->ne[0]) + "]"; });
    return g.add_node(ops::kTopk, GgmlType::I32, {k, x->ne[1], x->ne[2], x->ne[3]}, {x}, TopkParams{k});
}

}  // namespace tessera
