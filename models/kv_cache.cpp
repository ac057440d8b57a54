#include "models/kv_cache.hpp"

#include "support/error.hpp"

namespace tessera::model {

KvCache::KvCache(const HyperParams& hp, int64_t n_ctx, GgmlType type)
    : type_(type), shape_{hp.head_dim, n_ctx, hp.n_head_kv, 1} {
    if (type != GgmlType::F16 && type != GgmlType::F32) throw Error("the KV cache type must be f16 or f32");
    if (n_ctx < 1) throw Error("the context size must be at least 1, not " + std::to_string(n_ctx));
    const size_t layer_bytes = size_t(hp.head_dim * n_ctx * hp.n_head_kv) * ggml_type_traits(type).block_bytes;
    k_.assign(size_t(hp.n_layer), std::vector<uint8_t>(layer_bytes));
    v_.assign(size_t(hp.n_layer), std::vector<uint8_t>(layer_bytes));
}

size_t KvCache::bytes() const { return 2 * k_.size() * (k_.empty() ? 0 : k_[0].size()); }

}  // namespace tessera::model
