// A node of the tensor graph: a value of up to 4 dimensions with byte strides
// (ne[0] is the fastest dimension, as in GGUF), the op that produces it and
// where its data lives.
//
// Kinds of tensors:
//   leaf    op == nullptr: an input (storage planned by the executor, filled
//           by the caller), a weight (read-only data borrowed from e.g. the
//           mmapped GGUF) or an external buffer (writable, e.g. a KV cache)
//   view    op->is_view: shares the storage of src[0] at view_offset with its
//           own ne/nb (slices, reshapes, permutes); costs nothing to run
//   node    any other op: the executor gives it storage and runs its kernel
#pragma once

#include <any>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/quant/ggml_type.hpp"

namespace tessera {

class Graph;
struct OpDef;

constexpr int kMaxDims = 4;
using Shape = std::array<int64_t, kMaxDims>;
using Strides = std::array<size_t, kMaxDims>;

// Input: storage from the executor; Weight: borrowed, read-only; External:
// borrowed, writable (a KV cache).
enum class LeafKind : uint8_t { None, Input, Weight, External };

struct Tensor {
    Graph* graph = nullptr;
    int id = 0;  // creation order within the graph
    std::string name;

    GgmlType type = GgmlType::F32;
    Shape ne{1, 1, 1, 1};
    Strides nb{};  // bytes; nb[0] is the block size (a row of ne[0] values is contiguous)

    const OpDef* op = nullptr;   // nullptr for leaves
    std::vector<Tensor*> src;    // data inputs
    std::vector<Tensor*> after;  // ordering-only dependencies (e.g. a cache write before a read)
    std::any params;             // the op's parameters (its own struct)

    LeafKind leaf = LeafKind::None;
    size_t view_offset = 0;  // views: bytes from the start of src[0]'s data
    void* data = nullptr;    // host address, valid while the executor runs (or borrowed)
    int backend = 0;         // index of the backend that computes/stores it (executor's list)
    // Computed inside the kernels of the nodes that read it (Backend::inlines):
    // no storage (data stays null, unless Backend::stores_inlined), no run
    // and no level of its own. Set by the executor planning the graph (like
    // `backend`): the last one built.
    bool inlined = false;

    bool is_leaf() const { return op == nullptr; }
    bool is_view() const;
    // The tensor whose storage a view chain ends in (itself for non-views).
    const Tensor* storage_root() const;
    Tensor* storage_root();

    int64_t nelements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
    int64_t nrows() const { return ne[1] * ne[2] * ne[3]; }
    size_t row_bytes() const;  // bytes of one row of ne[0] values
    size_t nbytes() const;     // bytes spanned by the data (dense: row_bytes * nrows)
    bool is_contiguous() const;  // dense, in order
    int n_dims() const;          // 1..4, trailing size-1 dims not counted

    // Address of row (i1, i2, i3).
    char* row(int64_t i1, int64_t i2 = 0, int64_t i3 = 0) const {
        return static_cast<char*>(data) + i1 * nb[1] + i2 * nb[2] + i3 * nb[3];
    }
    template <class P>
    const P& param() const {
        return std::any_cast<const P&>(params);
    }
};

// Dense strides for ne of `type` (throws when ne[0] is not a multiple of the block).
Strides dense_strides(GgmlType type, const Shape& ne);
// "[2048, 32000]" (trailing 1s dropped) and "Q4_0 [2048, 32000]".
std::string shape_string(const Shape& ne);
std::string describe(const Tensor& t);

}  // namespace tessera
