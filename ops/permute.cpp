#include "ops/permute.hpp"

#include <algorithm>

#include "graph/graph.hpp"
#include "ops/common/check.hpp"

namespace tessera {

const OpDef ops::kPermute{.name = "permute", .is_view = true};

Tensor* permute(Tensor* t, std::array<int, kMaxDims> axes) {
    graph_of({t}, "permute");
    std::array<int, kMaxDims> sorted = axes;
    std::sort(sorted.begin(), sorted.end());
    check::that(sorted == std::array<int, kMaxDims>{0, 1, 2, 3}, "permute", "axes must be a permutation of 0..3");
    Shape ne;
    Strides nb;
    for (int d = 0; d < kMaxDims; ++d) {
        ne[d] = t->ne[axes[d]];
        nb[d] = t->nb[axes[d]];
    }
    check::that(axes[0] == 0 || ggml_type_traits(t->type).block_elems == 1, "permute",
                [&] { return "cannot move the block dimension of quantized " + describe(*t); });
    // A permuted row need not be contiguous; kernels that need it check.
    Graph& g = *t->graph;
    return g.add_node(ops::kPermute, t->type, ne, nb, {t});
}

Tensor* transpose(Tensor* t) { return permute(t, {1, 0, 2, 3}); }

}  // namespace tessera
