// Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B): Qwen3's attention with a
// mixture-of-experts feed-forward in every layer: a router over expert_count
// experts, the expert_used_count most probable chosen and their weights
// renormalized to sum to one, each expert a SwiGLU of
// expert_feed_forward_length. (feed_forward_length is the dense size of the
// original configuration; no tensor uses it.)
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr HParam kOwn[] = {
    kExpertCount,
    kExpertUsedCount,
    {.name = "n_ff_exp", .key = "{arch}.expert_feed_forward_length", .fallback_expr = "n_ff/n_expert_used"},
};
constexpr auto kHParams = with_standard_hparams(kOwn);

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm,    attn_q(),    attn_k(), attn_v(), attn_q_norm, attn_k_norm, attn_output(), ffn_norm,
    ffn_gate_inp, ffn_gate_exps("n_ff_exp"), ffn_up_exps("n_ff_exp"), ffn_down_exps("n_ff_exp"),
};

Tensor* block(Layer& layer, Tensor* x) {
    return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Neox, .qk_norm = true});
}

}  // namespace

extern const Architecture qwen3moe{.name = "qwen3moe",
                                   .hparams = kHParams,
                                   .globals = kStandardGlobals,
                                   .layer = kLayer,
                                   .block = block};

}  // namespace tessera::model::architectures
