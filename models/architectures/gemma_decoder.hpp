// What Gemma 2 and Gemma 3 share: embeddings scaled by sqrt(n_embd), a norm
// after attention and after the feed-forward as well as before them (the
// post norms' outputs join the residual), a GeGLU feed-forward, sliding-window
// layers in a repeating pattern with their own rope base, optional final
// soft-capping of the logits, and the attention scale llama.cpp gives them.
#pragma once

#include <cmath>

#include "models/architectures/sliding_window.hpp"
#include "models/architectures/standard_decoder.hpp"
#include "ops/ops.hpp"

namespace tessera::model {

namespace layer_tensors {
constexpr TensorSpec post_attention_norm{
    .role = "post_attention_norm", .name = "blk.{i}.post_attention_norm.weight", .shape = {"n_embd"}};
constexpr TensorSpec post_ffw_norm{.role = "post_ffw_norm", .name = "blk.{i}.post_ffw_norm.weight", .shape = {"n_embd"}};
}  // namespace layer_tensors

// x + post_norm(attention(norm(x))), then the same with the feed-forward.
inline Tensor* sandwich_norm_block(Layer& layer, Tensor* x, const AttentionSpec& attention) {
    Tensor* attended = layer.self_attention(layer.norm(x, "attn_norm"), nullptr, attention);
    x = layer.name(add(layer.norm(attended, "post_attention_norm"), x), "attn_residual");
    Tensor* ff = layer.feed_forward(layer.norm(x, "ffn_norm"), nullptr, {.gate = Gate::Gelu});
    return layer.name(add(layer.norm(ff, "post_ffw_norm"), x), "ffn_residual");
}

// The logits soft-capped by the final_softcap hyperparameter, where it is not 0.
inline Tensor* final_softcap(Layer& globals, Tensor* logits) {
    const float cap = float(globals.model().hparam("final_softcap"));
    return cap > 0 ? softcap(logits, cap) : logits;
}

inline Tensor* scale_embeddings(Layer& globals, Tensor* x) {
    return scale(x, std::sqrt(float(globals.model().hparams().n_embd)));
}

// The scale of q·k: 1/sqrt(query_pre_attn_scalar) of the original
// configuration, which GGUF files do not carry. It is head_dim for every
// Gemma 2 and 3 size but the 27B models, whose is n_embd / n_head; llama.cpp
// tells the 27B models by their layer count, and so does this.
inline float gemma_attention_scale(const Model& m, int64_t layers_of_27b) {
    const HyperParams& hp = m.hparams();
    const double scalar = hp.n_layer == layers_of_27b ? double(hp.n_embd / hp.n_head) : double(hp.head_dim);
    return float(1.0 / std::sqrt(scalar));
}

// The window of a layer: the file's sliding_window on windowed layers
// (sliding_window.hpp, default_pattern where the file has no pattern key).
inline int64_t gemma_sliding_window(const Model& m, int layer, uint64_t default_pattern) {
    const double window = m.hparam("sliding_window");
    if (window == 0 || !is_sliding_layer(m, layer, default_pattern)) return 0;
    return checked_window(m, window);
}

}  // namespace tessera::model
