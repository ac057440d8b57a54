#include "ops/moe_sum.hpp"

#include "graph/graph.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

void reference(const Tensor& out) {
    const Tensor& y = *out.src[0];
    const Tensor& w = *out.src[1];
    for (int64_t t = 0; t < out.ne[1]; ++t)
        for (int64_t i = 0; i < out.ne[0]; ++i) {
            double sum = 0;
            for (int64_t j = 0; j < y.ne[1]; ++j)
                sum += double(element<float>(w, j, {t, 0, 0})) * element<float>(y, i, {j, t, 0});
            element<float>(out, i, {t, 0, 0}) = float(sum);
        }
}

OpCost cost(const Tensor& out) {
    const Tensor& y = *out.src[0];
    return {.flops = 2.0 * double(y.nelements()), .bytes = double(y.nbytes() + out.nbytes())};
}

}  // namespace

const OpDef ops::kMoeSum{.name = "moe_sum", .reference = reference, .cost = cost};

Tensor* moe_sum(Tensor* y, Tensor* w) {
    Graph& g = graph_of({y, w}, "moe_sum");
    constexpr std::string_view op = "moe_sum";
    check::type(op, *y, GgmlType::F32);
    check::type(op, *w, GgmlType::F32);
    check::rows_contiguous(op, *y);
    check::rows_contiguous(op, *w);
    check::that(y->ne[3] == 1 && w->ne[2] == 1 && w->ne[3] == 1 && w->ne[0] == y->ne[1] && w->ne[1] == y->ne[2], op,
                [&] { return "outputs " + describe(*y) + " and weights " + describe(*w) + " must be [d, k, n] and [k, n]"; });
    return g.add_node(ops::kMoeSum, GgmlType::F32, {y->ne[0], y->ne[2], 1, 1}, {y, w});
}

}  // namespace tessera
