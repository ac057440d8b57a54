// The graph of one forward pass of a decoder-only transformer described by a
// Model: n_tokens new tokens at positions n_past.., their keys and values
// appended to the KV cache, logits of the last token (or of all of them).
#pragma once

#include <memory>
#include <span>
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
    // The id of the first tensor each layer's block built, then of the first
    // built after the last block: what splits a pass between devices by
    // layer without the architectures knowing (models/device_split.hpp).
    std::vector<int> block_first_ids;

    // The part of the pass that built t: -1 before the first layer (the
    // token embedding), l for layer l's block, n_layer after the last (the
    // output). Tensors the executor added (transfers) count as the last part.
    int part_of(const Tensor& t) const;

    // Positions first, first + 1, ... for the tokens, and their ring rows.
    void fill_positions(int32_t first);
    // Each token's position (negative: an idle sequence's, which stores
    // nothing and sees nothing), and their ring rows.
    void set_positions(std::span<const int32_t> positions);
};

// The sequences of the cache a pass computes: first .. first + count - 1,
// each with the same number of the pass's tokens (sequence-major).
struct PassSequences {
    int64_t first = 0, count = 1;
};

// precision: how every matmul rounds its activations. n_kv: the cache
// positions attention reads, n_past + n_tokens (0) or more: positions past
// a token's own are masked, so one graph serves several single-token steps.
// n_tokens counts the tokens of all the pass's sequences; n_past is the
// positions before them in each.
std::unique_ptr<DecoderPass> build_decoder_pass(const Model& model, KvCache& cache, int64_t n_tokens,
                                                int64_t n_past, bool all_logits, ActivationPrecision precision,
                                                int64_t n_kv = 0, PassSequences sequences = {});

}  // namespace tessera::model
