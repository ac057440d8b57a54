// What llama.cpp's Llama-like decoder architectures share in GGUF: the same
// hyperparameter keys under their own "{arch}." prefix, the same global
// tensors (token embedding, final norm, output projection tied to the
// embedding when the file has none), and the same pre-norm block of
// attention and SwiGLU feed-forward.
#pragma once

#include <array>
#include <iterator>

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

// The expert counts of a mixture-of-experts model (0 where the file has none).
inline constexpr HParam kExpertCount{.name = "n_expert", .key = "{arch}.expert_count", .fallback = 0};
inline constexpr HParam kExpertUsedCount{.name = "n_expert_used", .key = "{arch}.expert_used_count", .fallback = 0};

// kStandardHParams followed by an architecture's own.
template <size_t N>
constexpr std::array<HParam, std::size(kStandardHParams) + N> with_standard_hparams(const HParam (&own)[N]) {
    std::array<HParam, std::size(kStandardHParams) + N> all{};
    size_t i = 0;
    for (const HParam& h : kStandardHParams) all[i++] = h;
    for (const HParam& h : own) all[i++] = h;
    return all;
}

inline constexpr TensorSpec kStandardGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
};

// The per-layer tensors of those architectures, GGUF names and shapes, each
// projection with the bias its architecture gives it.
namespace layer_tensors {

constexpr TensorSpec projection(std::string_view role, std::string_view name, std::string_view in,
                                std::string_view out, Bias bias) {
    return {.role = role, .name = name, .shape = {in, out}, .bias = bias};
}
constexpr TensorSpec attn_norm{.role = "attn_norm", .name = "blk.{i}.attn_norm.weight", .shape = {"n_embd"}};
constexpr TensorSpec ffn_norm{.role = "ffn_norm", .name = "blk.{i}.ffn_norm.weight", .shape = {"n_embd"}};
// Per-head norms of q and k (Qwen3).
constexpr TensorSpec attn_q_norm{.role = "attn_q_norm", .name = "blk.{i}.attn_q_norm.weight", .shape = {"head_dim"}};
constexpr TensorSpec attn_k_norm{.role = "attn_k_norm", .name = "blk.{i}.attn_k_norm.weight", .shape = {"head_dim"}};
constexpr TensorSpec attn_q(Bias bias = Bias::None) {
    return projection("attn_q", "blk.{i}.attn_q.weight", "n_embd", "n_head*head_dim", bias);
}
constexpr TensorSpec attn_k(Bias bias = Bias::None) {
    return projection("attn_k", "blk.{i}.attn_k.weight", "n_embd", "n_head_kv*head_dim", bias);
}
constexpr TensorSpec attn_v(Bias bias = Bias::None) {
    return projection("attn_v", "blk.{i}.attn_v.weight", "n_embd", "n_head_kv*head_dim", bias);
}
constexpr TensorSpec attn_output(Bias bias = Bias::None) {
    return projection("attn_output", "blk.{i}.attn_output.weight", "n_head*head_dim", "n_embd", bias);
}
constexpr TensorSpec ffn_gate(Bias bias = Bias::None) {
    return projection("ffn_gate", "blk.{i}.ffn_gate.weight", "n_embd", "n_ff", bias);
}
constexpr TensorSpec ffn_up(Bias bias = Bias::None) {
    return projection("ffn_up", "blk.{i}.ffn_up.weight", "n_embd", "n_ff", bias);
}
constexpr TensorSpec ffn_down(Bias bias = Bias::None) {
    return projection("ffn_down", "blk.{i}.ffn_down.weight", "n_ff", "n_embd", bias);
}

// A mixture-of-experts feed-forward (Layer::moe_ffn): the router and the
// experts' gate, up and down matrices, expert e at index e of the last
// dimension, each `width` wide (an expression: "n_ff_exp", "n_ff").
constexpr TensorSpec ffn_gate_inp{
    .role = "ffn_gate_inp", .name = "blk.{i}.ffn_gate_inp.weight", .shape = {"n_embd", "n_expert"}};
constexpr TensorSpec ffn_gate_exps(std::string_view width) {
    return {.role = "ffn_gate_exps", .name = "blk.{i}.ffn_gate_exps.weight", .shape = {"n_embd", width, "n_expert"}};
}
constexpr TensorSpec ffn_up_exps(std::string_view width) {
    return {.role = "ffn_up_exps", .name = "blk.{i}.ffn_up_exps.weight", .shape = {"n_embd", width, "n_expert"}};
}
constexpr TensorSpec ffn_down_exps(std::string_view width) {
    return {.role = "ffn_down_exps", .name = "blk.{i}.ffn_down_exps.weight", .shape = {width, "n_embd", "n_expert"}};
}

// The spec, present only where the hyperparameter expression is nonzero / zero.
constexpr TensorSpec when(std::string_view expr, TensorSpec spec) {
    spec.when = expr;
    return spec;
}
constexpr TensorSpec unless(std::string_view expr, TensorSpec spec) {
    spec.unless = expr;
    return spec;
}

}  // namespace layer_tensors

// x + attention(norm(x)), then + swiglu(norm(x)): Llama's block, Qwen2's and
// Qwen3's with their own attention; the feed-forward is a mixture of experts
// where the layer has a router (ffn_gate_inp).
inline Tensor* pre_norm_block(Layer& layer, Tensor* x, const AttentionSpec& attention) {
    x = layer.self_attention(layer.norm(x, "attn_norm"), x, attention);
    if (layer.has("ffn_gate_inp")) return layer.moe_ffn(layer.norm(x, "ffn_norm"), x);
    return layer.swiglu_ffn(layer.norm(x, "ffn_norm"), x);
}

}  // namespace tessera::model
