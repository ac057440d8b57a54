#include "models/kv_cache.hpp"

#include <algorithm>

#include "support/error.hpp"

namespace tessera::model {

namespace {

constexpr int64_t kRingRowsAlign = 256;

}  // namespace

int64_t KvCache::rows_for(const Model& model, int layer, int64_t n_ctx, int64_t batch) {
    const int64_t window = model.sliding_window(layer);
    if (window == 0) return n_ctx;
    const int64_t ring = (window + batch + kRingRowsAlign - 1) / kRingRowsAlign * kRingRowsAlign;
    return std::min(n_ctx, ring);
}

KvCache::KvCache(const Model& model, int64_t n_ctx, GgmlType type, int64_t batch, int64_t n_seq)
    : type_(type),
      n_ctx_(n_ctx),
      head_dim_(model.hparams().head_dim),
      n_head_kv_(model.hparams().n_head_kv),
      n_seq_(n_seq) {
    if (type != GgmlType::F16 && type != GgmlType::F32) throw Error("the KV cache type must be f16 or f32");
    if (n_ctx < 1) throw Error("the context size must be at least 1, not " + std::to_string(n_ctx));
    if (batch < 1) throw Error("the batch size must be at least 1");
    if (n_seq < 1) throw Error("a KV cache holds at least one sequence");
    const int64_t n_layer = model.hparams().n_layer;
    for (int l = 0; l < int(n_layer); ++l) {
        rows_.push_back(rows_for(model, l, n_ctx, batch));
        windows_.push_back(model.sliding_window(l));
        const size_t bytes =
            size_t(head_dim_ * rows_.back() * n_head_kv_ * n_seq) * ggml_type_traits(type).block_bytes;
        k_.emplace_back(bytes);
        v_.emplace_back(bytes);
    }
}

// Position p's row in a ring was overwritten once p + rows was stored; a
// pass at position n needs the window's positions n - W + 1 .. n - 1.
int64_t KvCache::kept_stepping_back(int64_t n_past, int64_t to) const {
    for (size_t l = 0; l < rows_.size(); ++l)
        if (rows_[l] < n_ctx_ && n_past - to > rows_[l] - windows_[l]) return 0;
    return to;
}

size_t KvCache::bytes() const {
    size_t total = 0;
    for (const auto& k : k_) total += 2 * k.size();
    return total;
}

}  // namespace tessera::model
