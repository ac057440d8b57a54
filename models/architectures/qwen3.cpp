// Qwen3 (dense models): Qwen2's block without biases, with an RMS norm of
// each query and key head (over head_dim, before rope). Its head size is its
// own key (attention.key_length): 128 where n_embd/n_head is 64 or 80.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr TensorSpec kLayer[] = {
    {.role = "attn_norm", .name = "blk.{i}.attn_norm.weight", .shape = {"n_embd"}},
    {.role = "attn_q", .name = "blk.{i}.attn_q.weight", .shape = {"n_embd", "n_head*head_dim"}},
    {.role = "attn_k", .name = "blk.{i}.attn_k.weight", .shape = {"n_embd", "n_head_kv*head_dim"}},
    {.role = "attn_v", .name = "blk.{i}.attn_v.weight", .shape = {"n_embd", "n_head_kv*head_dim"}},
    {.role = "attn_q_norm", .name = "blk.{i}.attn_q_norm.weight", .shape = {"head_dim"}},
    {.role = "attn_k_norm", .name = "blk.{i}.attn_k_norm.weight", .shape = {"head_dim"}},
    {.role = "attn_output", .name = "blk.{i}.attn_output.weight", .shape = {"n_head*head_dim", "n_embd"}},
    {.role = "ffn_norm", .name = "blk.{i}.ffn_norm.weight", .shape = {"n_embd"}},
    {.role = "ffn_gate", .name = "blk.{i}.ffn_gate.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_up", .name = "blk.{i}.ffn_up.weight", .shape = {"n_embd", "n_ff"}},
    {.role = "ffn_down", .name = "blk.{i}.ffn_down.weight", .shape = {"n_ff", "n_embd"}},
};

Tensor* block(Layer& layer, Tensor* x) {
    return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Neox, .qk_norm = true});
}

}  // namespace

extern const Architecture qwen3{.name = "qwen3",
                                .hparams = kStandardHParams,
                                .globals = kStandardGlobals,
                                .layer = kLayer,
                                .block = block};

}  // namespace tessera::model::architectures
