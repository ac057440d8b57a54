// Qwen2 (Qwen2 and Qwen2.5 dense models): Llama's block with biases on the
// query, key and value projections, and rotary attention that rotates the
// two halves of each head (NEOX-style) instead of adjacent pairs.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr TensorSpec kLayer[] = {
    {.role = "attn_norm", .name = "blk.{i}.attn_norm.weight", .shape = {"n_embd"}},
    {.role = "attn_q", .name = "blk.{i}.attn_q.weight", .shape = {"n_embd", "n_head*head_dim"}, .bias = Bias::Required},
    {.role = "attn_k", .name = "blk.{i}.attn_k.weight", .shape = {"n_embd", "n_head_kv*head_dim"},
     .bias = Bias::Required},
    {.role = "attn_v", .name = "blk.{i}.attn_v.weight", .shape = {"n_embd", "n_head_kv*head_dim"},
     .bias = Bias::Required},
    {.role = "attn_output", .name = "blk.{i}.attn_output.weight", .shape = {"n_head*head_dim", "n_embd"}},
    {.role = "ffn_norm", .name = "blk.{i}.ffn_norm.weight", .shape = {"n_embd"}},
    {.role = "ffn_gate", .name = "blk.{i}.ffn_gate.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_up", .name = "blk.{i}.ffn_up.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_down", .name = "blk.{i}.ffn_down.weight", .shape = {"n_ff", "n_embd"}},
};

Tensor* block(Layer& layer, Tensor* x) { return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Neox}); }

}  // namespace

extern const Architecture qwen2{.name = "qwen2",
                                .hparams = kStandardHParams,
                                .globals = kStandardGlobals,
                                .layer = kLayer,
                                .block = block};

}  // namespace tessera::model::architectures
