// Phi-3 (and Phi-3.5, Phi-4-mini): Llama's block with q, k and v in one fused
// attn_qkv projection and the feed-forward's gate and up in one ffn_up
// (gate rows first), both read through views; NEOX rope over the first
// rope.dimension_count dims of each head. The long-context variants store
// two sets of per-pair frequency divisors: like llama.cpp, a context beyond
// rope.scaling.original_context_length uses rope_factors_long, a shorter one
// rope_factors_short, and the rotated dims are multiplied by
// rope.scaling.attn_factor. The file's sliding_window key is not used, as
// llama.cpp does not use it.
#include "models/architectures/standard_decoder.hpp"
#include "support/error.hpp"

namespace tessera::model::architectures {

namespace {

constexpr HParam kOwn[] = {
    {.name = "n_ctx_orig", .key = "{arch}.rope.scaling.original_context_length", .fallback_expr = "n_ctx_train"},
    {.name = "rope_attn_factor", .key = "{arch}.rope.scaling.attn_factor", .source = Source::Float, .fallback = 1.0},
};
constexpr auto kHParams = with_standard_hparams(kOwn);

constexpr TensorSpec kGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
    {.role = "rope_factors_long", .name = "rope_factors_long.weight", .shape = {"n_rot/2"}, .optional = true},
    {.role = "rope_factors_short", .name = "rope_factors_short.weight", .shape = {"n_rot/2"}, .optional = true},
};

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm,
    projection("attn_qkv", "blk.{i}.attn_qkv.weight", "n_embd", "n_head*head_dim+n_head_kv*head_dim*2", Bias::None),
    attn_output(),
    ffn_norm,
    projection("ffn_up", "blk.{i}.ffn_up.weight", "n_embd", "n_ff*2", Bias::None),
    ffn_down(),
};

Tensor* block(Layer& layer, Tensor* x) {
    const Model& m = layer.model();
    const bool has_long = m.find("rope_factors_long") != nullptr, has_short = m.find("rope_factors_short") != nullptr;
    if (has_long != has_short)
        throw Error(m.file().name() + ": a Phi-3 file has both rope_factors_long and rope_factors_short or neither");
    const bool long_context = double(layer.n_ctx()) > m.hparam("n_ctx_orig");
    const AttentionSpec spec{.rope = cpu::RopeMode::Neox,
                             .fused_qkv = true,
                             .rope_factors = long_context ? "rope_factors_long" : "rope_factors_short",
                             .rope_attn_factor = float(m.hparam("rope_attn_factor"))};
    // The set this context does not use is still part of the model: a leaf
    // of the pass, so that the check that every tensor is read holds.
    if (has_long && layer.index() == 0) layer.weight(long_context ? "rope_factors_short" : "rope_factors_long");
    x = layer.self_attention(layer.norm(x, "attn_norm"), x, spec);
    return layer.feed_forward(layer.norm(x, "ffn_norm"), x, {.fused_gate_up = true});
}

}  // namespace

extern const Architecture phi3{.name = "phi3",
                               .hparams = kHParams,
                               .globals = kGlobals,
                               .layer = kLayer,
                               .block = block};

}  // namespace tessera::model::architectures
