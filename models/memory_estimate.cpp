#include "models/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "models/kv_cache.hpp"
#include "support/error.hpp"

namespace tessera::model {

// Doubles: a corrupt or absurd request must not overflow the arithmetic that refuses it.
MemoryEstimate estimate_memory(const Model& model, int64_t n_ctx, GgmlType kv_type, int64_t batch) {
    const HyperParams& hp = model.hparams();
    MemoryEstimate m;
    m.weights = double(model.file().copied_bytes());
    double kv_rows = 0;  // over all layers; a sliding-window layer keeps fewer (kv_cache.hpp)
    for (int l = 0; l < int(hp.n_layer); ++l) kv_rows += double(KvCache::rows_for(model, l, n_ctx, std::max<int64_t>(batch, 1)));
    const double kv_values = 2.0 * kv_rows * double(hp.n_head_kv) * double(hp.head_dim);
    m.kv_cache = kv_values * double(ggml_type_traits(kv_type).block_bytes);
    // Per token of a batch: the residual stream and norms, q/k/v and the
    // attention output, the feed-forward's gate, up and product, F32 each;
    // then the logits of every position (the most a pass returns).
    const double per_token = 6.0 * double(hp.n_embd) + 2.0 * double(hp.n_head + 2 * hp.n_head_kv) * double(hp.head_dim) +
                             3.0 * double(hp.n_ff) + double(hp.n_vocab);
    m.activations = 4.0 * per_token * double(std::clamp<int64_t>(batch, 1, std::max<int64_t>(n_ctx, 1)));
    return m;
}

void require_memory(const MemoryEstimate& estimate, int64_t n_ctx) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return;  // unknown: nothing to compare with
    const double physical = double(pages) * double(page);
    if (estimate.total() <= physical) return;
    constexpr double kMiB = 1024.0 * 1024.0;
    char message[320];
    std::snprintf(message, sizeof message,
                  "a context of %lld tokens needs about %.0f MiB (weights %.0f MiB, KV cache %.0f MiB, activations "
                  "%.0f MiB), more than this machine's %.0f MiB of memory: use a smaller context",
                  static_cast<long long>(n_ctx), estimate.total() / kMiB, estimate.weights / kMiB,
                  estimate.kv_cache / kMiB, estimate.activations / kMiB, physical / kMiB);
    throw Error(message);
}

}  // namespace tessera::model
