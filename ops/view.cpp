#include "ops/view.hpp"

#include "graph/graph.hpp"
#include "graph/op_def.hpp"
#include "ops/common/check.hpp"

namespace tessera {

const OpDef ops::kView{.name = "view", .is_view = true};

namespace {

// Highest byte offset (exclusive) a view with ne/nb starting at offset touches.
size_t view_end(GgmlType type, const Shape& ne, const Strides& nb, size_t offset) {
    Tensor probe;
    probe.type = type;
    probe.ne = ne;
    probe.nb = nb;
    return offset + probe.nbytes();
}

}  // namespace

Tensor* view(Tensor* t, Shape ne, Strides nb, size_t offset) {
    Graph& g = graph_of({t}, "view");
    for (int64_t n : ne) check::that(n >= 0, "view", [&] { return "negative dimension in " + shape_string(ne); });
    check::that(nb[0] == ggml_type_traits(t->type).block_bytes, "view",
                [&] { return "the innermost stride of a view of " + describe(*t) + " must be its block size"; });
    check::that(ne[0] % int64_t(ggml_type_traits(t->type).block_elems) == 0, "view",
                [&] { return "a view row of " + std::to_string(ne[0]) + " values is not a whole number of blocks of " +
                    describe(*t); });
    check::that(view_end(t->type, ne, nb, offset) <= std::max(t->nbytes(), offset), "view",
                [&] { return "a view " + shape_string(ne) + " at byte " + std::to_string(offset) + " reaches past the end of " +
                    describe(*t); });
    Tensor* v = g.add_node(ops::kView, t->type, ne, nb, {t});
    v->view_offset = offset;
    return v;
}

Tensor* reshape(Tensor* t, Shape ne) {
    graph_of({t}, "reshape");
    check::that(t->is_contiguous(), "reshape", [&] { return describe(*t) + " is not contiguous (copy it first)"; });
    check::that(ne[0] * ne[1] * ne[2] * ne[3] == t->nelements(), "reshape",
                [&] { return "cannot reshape " + describe(*t) + " to " + shape_string(ne); });
    return view(t, ne, dense_strides(t->type, ne));
}

Tensor* slice_rows(Tensor* t, int64_t first, int64_t count) {
    graph_of({t}, "slice_rows");
    check::that(first >= 0 && count >= 0 && first + count <= t->ne[1], "slice_rows",
                [&] { return "rows [" + std::to_string(first) + ", " + std::to_string(first + count) + ") are outside " +
                    describe(*t); });
    Shape ne = t->ne;
    ne[1] = count;
    return view(t, ne, t->nb, size_t(first) * t->nb[1]);
}

}  // namespace tessera
