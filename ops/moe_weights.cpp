#include "ops/moe_weights.hpp"

#include <algorithm>

#include "graph/graph.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

namespace tessera {

namespace {

void reference(const Tensor& w) {
    const Tensor& probs = *w.src[0];
    const Tensor& ids = *w.src[1];
    const bool normalize = w.param<MoeWeightsParams>().normalize;
    for_each_row(w, [&](RowIndex ri) {
        double sum = 0;
        for (int64_t j = 0; j < w.ne[0]; ++j) sum += element<float>(probs, element<int32_t>(ids, j, ri), ri);
        const double scale = normalize ? 1.0 / std::max(sum, double(kMoeWeightSumFloor)) : 1.0;
        for (int64_t j = 0; j < w.ne[0]; ++j)
            element<float>(w, j, ri) = float(element<float>(probs, element<int32_t>(ids, j, ri), ri) * scale);
    });
}

OpCost cost(const Tensor& w) { return {.flops = 2.0 * double(w.nelements()), .bytes = 3.0 * double(w.nbytes())}; }

}  // namespace

const OpDef ops::kMoeWeights{.name = "moe_weights", .reference = reference, .cost = cost};

Tensor* moe_weights(Tensor* probs, Tensor* ids, bool normalize) {
    Graph& g = graph_of({probs, ids}, "moe_weights");
    constexpr std::string_view op = "moe_weights";
    check::type(op, *probs, GgmlType::F32);
    check::type(op, *ids, GgmlType::I32);
    check::rows_contiguous(op, *probs);
    check::rows_contiguous(op, *ids);
    check::that(probs->ne[1] == ids->ne[1] && probs->ne[2] == 1 && ids->ne[2] == 1 && probs->ne[3] == 1 &&
                    ids->ne[3] == 1 && ids->ne[0] <= probs->ne[0],
                op, [&] { return "probs " + describe(*probs) + " and ids " + describe(*ids) + " must be [n_expert, n] and [k <= n_expert, n]"; });
    return g.add_node(ops::kMoeWeights, GgmlType::F32, ids->ne, {probs, ids}, MoeWeightsParams{normalize});
}

}  // namespace tessera
