// Keys and values of every layer for up to n_ctx positions, stored F16 (as
// llama.cpp does by default) or F32. Layer l's K is [head_dim, n_ctx,
// n_head_kv]: each kv head's positions are contiguous rows.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/tensor.hpp"
#include "models/model.hpp"

namespace tessera::model {

class KvCache {
public:
    KvCache(const HyperParams& hp, int64_t n_ctx, GgmlType type);

    GgmlType type() const { return type_; }
    int64_t n_ctx() const { return shape_[1]; }
    const Shape& shape() const { return shape_; }  // of one layer's K (and V)
    void* k(int64_t layer) { return k_[size_t(layer)].data(); }
    void* v(int64_t layer) { return v_[size_t(layer)].data(); }
    size_t bytes() const;

private:
    GgmlType type_;
    Shape shape_;
    std::vector<std::vector<uint8_t>> k_, v_;
};

}  // namespace tessera::model
