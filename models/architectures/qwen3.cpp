// Qwen3 (dense models): Qwen2's block without biases, with an RMS norm of
// each query and key head (over head_dim, before rope). Its head size is its
// own key (attention.key_length): 128 where n_embd/n_head is 64 or 80.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm, attn_q(), attn_k(), attn_v(), attn_q_norm, attn_k_norm, attn_output(),
    ffn_norm,  ffn_gate(), ffn_up(), ffn_down(),
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
