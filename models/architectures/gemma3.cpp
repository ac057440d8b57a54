// Gemma 3 (text): Gemma's sandwich-norm block (gemma_decoder.hpp) with per-head
// RMS norms of q and k, NEOX rope, and five sliding-window layers to each
// global one. Windowed layers turn with their own rope base and no rope
// scaling; global layers with the file's base and scaling. The embedding
// also projects the logits unless the file has an output matrix.
#include "models/architectures/gemma_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr HParam kOwn[] = {
    // No key (or 0): no layer has a window.
    {.name = "sliding_window", .key = "{arch}.attention.sliding_window", .fallback = 0},
    {.name = "rope_base_swa", .key = "{arch}.rope.freq_base_swa", .source = Source::Float, .fallback = 10000.0},
    {.name = "final_softcap", .key = "{arch}.final_logit_softcapping", .source = Source::Float, .fallback = 0.0},
};
constexpr auto kHParams = with_standard_hparams(kOwn);

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm, attn_q(),   attn_k(), attn_v(),   attn_q_norm, attn_k_norm,   attn_output(),
    post_attention_norm, ffn_norm, ffn_gate(), ffn_up(), ffn_down(), post_ffw_norm,
};

constexpr int64_t kLayersOf27b = 62;
constexpr uint64_t kPattern = 6;  // llama.cpp's default: 5 local layers, then a global one

int64_t sliding_window(const Model& m, int layer) { return gemma_sliding_window(m, layer, kPattern); }

Tensor* block(Layer& layer, Tensor* x) {
    const Model& m = layer.model();
    AttentionSpec spec{.rope = cpu::RopeMode::Neox, .qk_norm = true, .scale = gemma_attention_scale(m, kLayersOf27b)};
    if (layer.is_sliding()) {
        spec.rope_base = float(m.hparam("rope_base_swa"));
        spec.rope_freq_scale = 1.0f;
    }
    return sandwich_norm_block(layer, x, spec);
}

}  // namespace

extern const Architecture gemma3{.name = "gemma3",
                                 .hparams = kHParams,
                                 .globals = kStandardGlobals,
                                 .layer = kLayer,
                                 .block = block,
                                 .embed = scale_embeddings,
                                 .logits = final_softcap,
                                 .sliding_window = sliding_window};

}  // namespace tessera::model::architectures
