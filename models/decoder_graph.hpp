// The graph of one forward pass of a decoder-only transformer described by a
// Model: n_tokens new tokens at positions n_past.., their keys and values
// appended to the KV cache, logits of the last token (or of all of them).
#pragma once

#include <memory>
#include <vector>

#include "graph/graph.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"

namespace tessera::model {

struct DecoderPass {
    Graph graph;
    Tensor* tokens = nullptr;     // I32 [n_tokens], filled by the caller
    Tensor* positions = nullptr;  // I32 [n_tokens], filled by fill_positions
    Tensor* logits = nullptr;     // F32 [n_vocab, 1 or n_tokens]
    std::vector<RingSlots> rings;  // one per ring size of the cache, filled by fill_positions

    // Positions first, first + 1, ... for the tokens, and their ring rows.
    void fill_positions(int32_t first);
};

// precision: how every matmul rounds its activations. n_kv: the cache
// positions attention reads, n_past + n_tokens (0) or more: positions past
// a token's own are masked, so one graph serves several single-token steps.
std::unique_ptr<DecoderPass> build_decoder_pass(const Model& model, KvCache& cache, int64_t n_tokens,
                                                int64_t n_past, bool all_logits, ActivationPrecision precision,
                                                int64_t n_kv = 0);

}  // namespace tessera::model
