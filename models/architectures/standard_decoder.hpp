// What llama.cpp's Llama-like decoder architectures share in GGUF: the same
// hyperparameter keys under their own "{arch}." prefix, and the same global
// tensors (token embedding, final norm, output projection tied to the
// embedding when the file has none).
#pragma once

#include "models/architecture.hpp"

namespace tessera::model {

inline constexpr HParam kStandardHParams[] = {
    {.name = "n_embd", .key = "{arch}.embedding_length"},
    {.name = "n_layer", .key = "{arch}.block_count"},
    {.name = "n_head", .key = "{arch}.attention.head_count"},
    {.name = "n_head_kv", .key = "{arch}.attention.head_count_kv", .fallback_expr = "n_head"},
    {.name = "head_dim", .key = "{arch}.attention.key_length", .fallback_expr = "n_embd/n_head"},
    {.name = "n_ff", .key = "{arch}.feed_forward_length"},
    {.name = "n_ctx_train", .key = "{arch}.context_length", .fallback = 2048},
    {.name = "n_vocab", .key = "tokenizer.ggml.tokens", .source = Source::ArrayLength},
    {.name = "rms_eps", .key = "{arch}.attention.layer_norm_rms_epsilon", .source = Source::Float},
    {.name = "rope_base", .key = "{arch}.rope.freq_base", .source = Source::Float, .fallback = 10000.0},
    {.name = "n_rot", .key = "{arch}.rope.dimension_count", .fallback_expr = "head_dim"},
};

inline constexpr TensorSpec kStandardGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
};

}  // namespace tessera::model
