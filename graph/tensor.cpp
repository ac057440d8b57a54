#include "graph/tensor.hpp"

#include <utility>

#include "graph/op_def.hpp"
#include "support/error.hpp"

namespace tessera {

bool Tensor::is_view() const { return op != nullptr && op->is_view; }

const Tensor* Tensor::storage_root() const {
    const Tensor* t = this;
    while (t->op != nullptr && (t->op->is_view || t->op->alias_src >= 0))
        t = t->src[t->op->is_view ? 0 : size_t(t->op->alias_src)];
    return t;
}

Tensor* Tensor::storage_root() { return const_cast<Tensor*>(std::as_const(*this).storage_root()); }

size_t Tensor::row_bytes() const {
    const GgmlTypeTraits& tr = ggml_type_traits(type);
    return size_t(ne[0] / int64_t(tr.block_elems)) * tr.block_bytes;
}

size_t Tensor::nbytes() const {
    if (nelements() == 0) return 0;
    size_t last = row_bytes();
    for (int d = 1; d < kMaxDims; ++d) last += size_t(ne[d] - 1) * nb[d];
    return last;
}

bool Tensor::is_contiguous() const { return nb == dense_strides(type, ne); }

int Tensor::n_dims() const {
    int n = kMaxDims;
    while (n > 1 && ne[n - 1] == 1) --n;
    return n;
}

Strides dense_strides(GgmlType type, const Shape& ne) {
    const GgmlTypeTraits& tr = ggml_type_traits(type);
    if (ne[0] % int64_t(tr.block_elems) != 0)
        throw Error("a row of " + std::to_string(ne[0]) + " values is not a whole number of " +
                    std::string(tr.name) + " blocks of " + std::to_string(tr.block_elems));
    Strides nb{};
    nb[0] = tr.block_bytes;
    nb[1] = size_t(ne[0] / int64_t(tr.block_elems)) * tr.block_bytes;
    for (int d = 2; d < kMaxDims; ++d) nb[d] = nb[d - 1] * size_t(ne[d - 1]);
    return nb;
}

std::string shape_string(const Shape& ne) {
    int n = kMaxDims;
    while (n > 1 && ne[n - 1] == 1) --n;
    std::string s = "[";
    for (int d = 0; d < n; ++d) s += (d ? ", " : "") + std::to_string(ne[d]);
    return s + "]";
}

std::string describe(const Tensor& t) {
    return "'" + t.name + "' " + std::string(ggml_type_traits(t.type).name) + " " + shape_string(t.ne);
}

}  // namespace tessera
