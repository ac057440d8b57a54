#include "ops/softmax.hpp"

#include <algorithm>
#include <cmath>

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "ops/common/check.hpp"

namespace tessera {

int64_t softmax_unmasked(const Tensor& y, RowIndex ri) {
    if (y.src.size() < 2) return y.ne[0];
    const int64_t pos = element<int32_t>(*y.src[1], ri.i1, {0, 0, 0});
    return std::clamp<int64_t>(pos + 1, 0, y.ne[0]);
}

namespace {

void reference(const Tensor& y) {
    const Tensor& x = *y.src[0];
    const double scale = y.param<SoftmaxParams>().scale;
    for_each_row(y, [&](RowIndex ri) {
        const int64_t n = softmax_unmasked(y, ri);
        double max = -INFINITY;
        for (int64_t i = 0; i < n; ++i) max = std::max(max, scale * element<float>(x, i, ri));
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) sum += std::exp(scale * element<float>(x, i, ri) - max);
        for (int64_t i = 0; i < y.ne[0]; ++i)
            element<float>(y, i, ri) = i < n ? float(std::exp(scale * element<float>(x, i, ri) - max) / sum) : 0.0f;
    });
}

OpCost cost(const Tensor& y) { return {.flops = 4.0 * double(y.nelements()), .bytes = 8.0 * double(y.nelements())}; }

}  // namespace

const OpDef ops::kSoftmax{.name = "softmax", .reference = reference, .cost = cost};

Tensor* softmax(Tensor* x, float scale, Tensor* positions) {
    Graph& g = positions ? graph_of({x, positions}, "softmax") : graph_of({x}, "softmax");
    check::type("softmax", *x, GgmlType::F32);
    check::rows_contiguous("softmax", *x);
    check::that(std::isfinite(scale), "softmax", "scale must be finite");
    std::vector<Tensor*> src{x};
    if (positions != nullptr) {
        check::type("softmax", *positions, GgmlType::I32);
        check::that(positions->n_dims() == 1 && positions->ne[0] == x->ne[1] && positions->is_contiguous(),
                    "softmax", [&] { return "positions " + describe(*positions) + " must hold one position per row of " +
                                   describe(*x); });
        src.push_back(positions);
    }
    return g.add_node(ops::kSoftmax, GgmlType::F32, x->ne, std::move(src), SoftmaxParams{scale});
}

}  // namespace tessera
