// Keys and values of every layer for n_seq sequences, stored F16 (as
// llama.cpp does by default) or F32. Layer l's K is [head_dim, rows(l),
// n_head_kv, n_seq]: each kv head's positions are contiguous rows, each
// sequence's rows a block of their own. A layer of full attention has a row for each
// of the n_ctx positions; a sliding-window layer only rows for its window and
// one batch, used as a ring (position p at row p mod rows), as llama.cpp
// keeps a smaller cache for such layers.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/tensor.hpp"
#include "models/model.hpp"

namespace tessera::model {

// The rows of a pass's tokens in a ring of `rows` rows: position mod rows
// (an input of the pass, DecoderPass::fill_positions).
struct RingSlots {
    int64_t rows;
    Tensor* slots;  // I32 [n_tokens]
};

class KvCache {
public:
    // Rows for batches of up to `batch` tokens, for n_seq sequences.
    KvCache(const Model& model, int64_t n_ctx, GgmlType type, int64_t batch, int64_t n_seq = 1);

    // The rows layer l needs: n_ctx, or for a window W at most W + batch
    // rounded up to 256 (the window's positions and a batch of new ones).
    static int64_t rows_for(const Model& model, int layer, int64_t n_ctx, int64_t batch);

    GgmlType type() const { return type_; }
    int64_t n_ctx() const { return n_ctx_; }
    int64_t n_seq() const { return n_seq_; }
    // The shape of layer l's K (and V): all sequences.
    Shape shape(int64_t layer) const { return {head_dim_, rows_[size_t(layer)], n_head_kv_, n_seq_}; }
    int64_t rows(int64_t layer) const { return rows_[size_t(layer)]; }
    // Whether layer l's rows are a ring (fewer rows than positions).
    bool is_ring(int64_t layer) const { return rows(layer) < n_ctx_; }
    // The positions a sequence holding n_past keeps when asked to step back
    // to `to` (Session::truncate): `to` while every ring still holds the
    // window before it, else 0.
    int64_t kept_stepping_back(int64_t n_past, int64_t to) const;
    // Layer l's K (V) from sequence `seq` on.
    void* k(int64_t layer, int64_t seq = 0) { return k_[size_t(layer)].data() + size_t(seq) * seq_bytes(layer); }
    void* v(int64_t layer, int64_t seq = 0) { return v_[size_t(layer)].data() + size_t(seq) * seq_bytes(layer); }
    // The bytes of one sequence's K (V) in layer l.
    size_t seq_bytes(int64_t layer) const { return k_[size_t(layer)].size() / size_t(n_seq_); }
    size_t bytes() const;

private:
    GgmlType type_;
    int64_t n_ctx_, head_dim_, n_head_kv_, n_seq_;
    std::vector<int64_t> rows_, windows_;
    std::vector<std::vector<uint8_t>> k_, v_;
};

}  // namespace tessera::model
