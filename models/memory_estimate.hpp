// What a session will hold in memory, estimated from the hyperparameters
// before anything is allocated, so that a request the machine cannot hold (a
// context of a billion positions) fails at once with the numbers, instead of
// after minutes of zero-filling or with std::bad_alloc.
#pragma once

#include <cstdint>

#include "kernels/quant/ggml_type.hpp"
#include "models/model.hpp"

namespace tessera::model {

struct MemoryEstimate {
    double weights = 0;      // the weights a huge-page copy holds in memory (a mapping can be paged out: not counted)
    double kv_cache = 0;     // K and V of every layer for n_ctx positions (fewer for a sliding window)
    double activations = 0;  // one pass's intermediates and logits, roughly
    double total() const { return weights + kv_cache + activations; }
};

MemoryEstimate estimate_memory(const Model& model, int64_t n_ctx, GgmlType kv_type, int64_t batch);

// Throws an Error with the estimate's parts, in MiB, when its total exceeds
// the machine's physical memory.
void require_memory(const MemoryEstimate& estimate, int64_t n_ctx);

}  // namespace tessera::model
