// Llama and the models that share its GGUF layout (Llama-2/3, TinyLlama,
// Mistral): pre-norm blocks with RMS norm, rotary (adjacent-pair) attention
// with grouped-query heads, SwiGLU feed-forward.
#include "models/architectures/registry.hpp"

namespace tessera::model {

namespace {

constexpr HParam kHParams[] = {
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

constexpr TensorSpec kGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
};

constexpr TensorSpec kLayer[] = {
    {.role = "attn_norm", .name = "blk.{i}.attn_norm.weight", .shape = {"n_embd"}},
    {.role = "attn_q", .name = "blk.{i}.attn_q.weight", .shape = {"n_embd", "n_head*head_dim"}},
    {.role = "attn_k", .name = "blk.{i}.attn_k.weight", .shape = {"n_embd", "n_head_kv*head_dim"}},
    {.role = "attn_v", .name = "blk.{i}.attn_v.weight", .shape = {"n_embd", "n_head_kv*head_dim"}},
    {.role = "attn_output", .name = "blk.{i}.attn_output.weight", .shape = {"n_head*head_dim", "n_embd"}},
    {.role = "ffn_norm", .name = "blk.{i}.ffn_norm.weight", .shape = {"n_embd"}},
    {.role = "ffn_gate", .name = "blk.{i}.ffn_gate.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_up", .name = "blk.{i}.ffn_up.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_down", .name = "blk.{i}.ffn_down.weight", .shape = {"n_ff", "n_embd"}},
};

}  // namespace

const Architecture kLlama{.name = "llama",
                          .hparams = kHParams,
                          .globals = kGlobals,
                          .layer = kLayer,
                          .rope_mode = cpu::RopeMode::Normal};

}  // namespace tessera::model
