// Push-constant descriptions of bound tensors, shared by the kernels.
#pragma once

#include <cstdint>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// Where a tensor's rows are in its binding, in elements of elem_bytes.
struct RowLayout {
    uint32_t first, nb1, nb2, nb3;
};

inline RowLayout row_layout(const Tensor& t, const BoundTensor& b, uint32_t elem_bytes) {
    return {b.first(elem_bytes), uint32_t(t.nb[1] / elem_bytes), uint32_t(t.nb[2] / elem_bytes),
            uint32_t(t.nb[3] / elem_bytes)};
}

// The rows of an output, for the shaders that give each row a workgroup.
struct RowShape {
    uint32_t ne0, ne1, ne2, nrows;
};

inline RowShape row_shape(const Tensor& y) {
    return {uint32_t(y.ne[0]), uint32_t(y.ne[1]), uint32_t(y.ne[2]), uint32_t(y.nrows())};
}

// Whether t's start and row, plane (and, where it has several, batch)
// strides in its binding are whole pieces of `bytes` (a shader can load
// them so, or count in them).
inline bool whole_pieces(const BoundTensor& b, const Tensor& t, uint32_t bytes) {
    return b.shift % bytes == 0 && t.nb[1] % bytes == 0 && t.nb[2] % bytes == 0 && (t.ne[3] == 1 || t.nb[3] % bytes == 0);
}

// Rows whose values are contiguous (nb[0] is the element size).
inline bool dense_rows(const Tensor& t, size_t elem_bytes) { return t.nb[0] == elem_bytes; }

}  // namespace tessera::vkk
