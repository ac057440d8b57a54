// Qwen2 (Qwen2 and Qwen2.5 dense models): Llama's block with biases on the
// query, key and value projections, and rotary attention that rotates the
// two halves of each head (NEOX-style) instead of adjacent pairs.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm, attn_q(Bias::Required), attn_k(Bias::Required), attn_v(Bias::Required), attn_output(),
    ffn_norm,  ffn_gate(),             ffn_up(),               ffn_down(),
};

Tensor* block(Layer& layer, Tensor* x) { return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Neox}); }

}  // namespace

extern const Architecture qwen2{.name = "qwen2",
                                .hparams = kStandardHParams,
                                .globals = kStandardGlobals,
                                .layer = kLayer,
                                .block = block};

}  // namespace tessera::model::architectures
