// Llama and the models that share its GGUF layout (Llama-2/3, TinyLlama,
// Mistral): pre-norm blocks with RMS norm, rotary (adjacent-pair) attention
// with grouped-query heads, SwiGLU feed-forward. Projections may carry biases
// (llama.cpp loads them when present; the released Llama models have none).
#include "models/architectures/registry.hpp"
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model {

namespace {

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

}  // namespace

const Architecture kLlama{.name = "llama",
                          .hparams = kStandardHParams,
                          .globals = kStandardGlobals,
                          .layer = kLayer,
                          .rope_mode = cpu::RopeMode::Normal};

}  // namespace tessera::model
