// Gemma 2: Gemma's sandwich-norm block (gemma_decoder.hpp) with NEOX rope,
// soft-capped attention scores and logits (cap * tanh(x / cap); 50 and 30
// unless the file says otherwise), and a sliding window (4096 unless the
// file says otherwise) on every other layer, starting with the first. The
// embedding also projects the logits.
#include "models/architectures/gemma_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr HParam kOwn[] = {
    {.name = "sliding_window", .key = "{arch}.attention.sliding_window", .fallback = 4096},
    {.name = "rope_base_swa", .key = "{arch}.rope.freq_base_swa", .source = Source::Float, .fallback_expr = "rope_base"},
    {.name = "attn_softcap", .key = "{arch}.attn_logit_softcapping", .source = Source::Float, .fallback = 50.0},
    {.name = "final_softcap", .key = "{arch}.final_logit_softcapping", .source = Source::Float, .fallback = 30.0},
};
constexpr auto kHParams = with_standard_hparams(kOwn);

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm, attn_q(),   attn_k(), attn_v(),   attn_output(), post_attention_norm,
    ffn_norm,  ffn_gate(), ffn_up(), ffn_down(), post_ffw_norm,
};

constexpr int64_t kLayersOf27b = 46;
constexpr uint64_t kPattern = 2;

int64_t sliding_window(const Model& m, int layer) { return gemma_sliding_window(m, layer, kPattern); }

Tensor* block(Layer& layer, Tensor* x) {
    const Model& m = layer.model();
    AttentionSpec spec{.rope = cpu::RopeMode::Neox,
                       .scale = gemma_attention_scale(m, kLayersOf27b),
                       .softcap = float(m.hparam("attn_softcap"))};
    if (layer.is_sliding()) spec.rope_base = float(m.hparam("rope_base_swa"));
    return sandwich_norm_block(layer, x, spec);
}

}  // namespace

extern const Architecture gemma2{.name = "gemma2",
                                 .hparams = kHParams,
                                 .globals = kStandardGlobals,
                                 .layer = kLayer,
                                 .block = block,
                                 .embed = scale_embeddings,
                                 .logits = final_softcap,
                                 .sliding_window = sliding_window};

}  // namespace tessera::model::architectures
