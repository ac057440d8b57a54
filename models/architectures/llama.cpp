// Llama and the models that share its GGUF layout (Llama-2/3, TinyLlama,
// Mistral): pre-norm blocks with RMS norm, rotary (adjacent-pair) attention
// with grouped-query heads, SwiGLU feed-forward. Projections may carry biases
// (llama.cpp loads them when present; the released Llama models have none).
// Llama-3.1 and later store their "llama3" rope scaling as rope_freqs, one
// divisor of each rotated pair's frequency.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr TensorSpec kGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
    {.role = "rope_freqs", .name = "rope_freqs.weight", .shape = {"n_rot/2"}, .optional = true},
};

constexpr TensorSpec kLayer[] = {
    {.role = "attn_norm", .name = "blk.{i}.attn_norm.weight", .shape = {"n_embd"}},
    {.role = "attn_q", .name = "blk.{i}.attn_q.weight", .shape = {"n_embd", "n_head*head_dim"}, .bias = Bias::Optional},
    {.role = "attn_k", .name = "blk.{i}.attn_k.weight", .shape = {"n_embd", "n_head_kv*head_dim"},
     .bias = Bias::Optional},
    {.role = "attn_v", .name = "blk.{i}.attn_v.weight", .shape = {"n_embd", "n_head_kv*head_dim"},
     .bias = Bias::Optional},
    {.role = "attn_output", .name = "blk.{i}.attn_output.weight", .shape = {"n_head*head_dim", "n_embd"},
     .bias = Bias::Optional},
    {.role = "ffn_norm", .name = "blk.{i}.ffn_norm.weight", .shape = {"n_embd"}},
    {.role = "ffn_gate", .name = "blk.{i}.ffn_gate.weight", .shape = {"n_embd", "n_ff"}, .bias = Bias::Optional},
    {.role = "ffn_up", .name = "blk.{i}.ffn_up.weight", .shape = {"n_embd", "n_ff"}, .bias = Bias::Optional},
    {.role = "ffn_down", .name = "blk.{i}.ffn_down.weight", .shape = {"n_ff", "n_embd"}, .bias = Bias::Optional},
};

Tensor* block(Layer& layer, Tensor* x) { return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Normal}); }

}  // namespace

extern const Architecture llama{.name = "llama",
                                .hparams = kStandardHParams,
                                .globals = kGlobals,
                                .layer = kLayer,
                                .block = block};

}  // namespace tessera::model::architectures
