// What llama.cpp's Llama-like decoder architectures share in GGUF: the same
// hyperparameter keys under their own "{arch}." prefix, the same global
// tensors (token embedding, final norm, output projection tied to the
// embedding when the file has none), and the same pre-norm block of
// attention and SwiGLU feed-forward.
#pragma once

#include "models/architecture.hpp"
#include "models/layer.hpp"

namespace tessera::model {

inline constexpr HParam kStandardHParams[] = {
    {.name = "n_embd", .key = "{arch}.embedding_length"},
    {.name = "n_layer", .key = "{arch}.block_count"},
    {.name = "n_head", .key = "{arch}.attention.head_count"},
    {.name = "n_head_kv", .key = "{arch}.attention.head_count_kv", .fallback_expr = "n_head"},
    {.name = "head_dim", .key = "{arch}.attention.key_length", .fallback_expr = "n_embd/n_head"},
    {.name = "head_dim_v", .key = "{arch}.attention.value_length", .fallback_expr = "head_dim"},
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

// x + attention(norm(x)), then + swiglu(norm(x)): Llama's block, Qwen2's and
// Qwen3's with their own attention.
inline Tensor* pre_norm_block(Layer& layer, Tensor* x, const AttentionSpec& attention) {
    x = layer.self_attention(layer.norm(x, "attn_norm"), x, attention);
    return layer.swiglu_ffn(layer.norm(x, "ffn_norm"), x);
}

}  // namespace tessera::model
