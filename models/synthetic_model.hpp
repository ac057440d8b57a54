// Synthetic models: random weights in the shape of a real model and a
// generated vocabulary, so that anyone can benchmark or test without
// downloading weights (`tessera make-model`). Keys and tensors are those of
// the architecture's description (models/architectures/), which follow
// llama.cpp's GGUF conventions (as does the file type), so llama.cpp loads
// the very same file.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/quantize_model.hpp"

namespace tessera::model {

// Llama 3.1's "llama3" rope scaling: pairs whose wavelength exceeds
// original_context / low_freq_factor turn `factor` times slower, those under
// original_context / high_freq_factor as before, those between on a smooth
// ramp. Files store it as rope_freqs.weight, one divisor per pair.
struct Llama3RopeScaling {
    float factor = 0, low_freq_factor = 1, high_freq_factor = 4;
    int64_t original_context = 8192;

    // The divisor of each of the n_rot/2 pairs' frequencies.
    std::vector<float> freq_divisors(int64_t n_rot, float rope_base) const;
};

struct ModelShape {
    std::string name;
    int64_t n_vocab = 0, n_embd = 0, n_layer = 0, n_head = 0, n_head_kv = 0, n_ff = 0, n_ctx = 0;
    float rope_base = 10000.0f, rms_eps = 1e-5f;
    int64_t n_head_dim = 0;    // 0: n_embd / n_head (Qwen3's heads are larger)
    bool tied_output = false;  // no output.weight: the embedding also projects the logits
    std::optional<Llama3RopeScaling> llama3_rope = std::nullopt;
    // Gemma and Phi-3 keys (0: the key is not written, or the architecture's default).
    int64_t sliding_window = 0;      // attention.sliding_window
    float rope_base_swa = 0.0f;      // rope.freq_base_swa of windowed layers (0: rope_base)
    float attn_softcap = 0.0f;       // attn_logit_softcapping
    float final_softcap = 0.0f;      // final_logit_softcapping
    float linear_rope_factor = 0.0f; // rope.scaling.type "linear", rope.scaling.factor
    int64_t n_ctx_orig = 0;          // rope.scaling.original_context_length (0: n_ctx)
    int64_t n_rot = 0;               // rope.dimension_count (0: head_dim)
    // The value of every norm's weights. Gemma's files store 1 + the trained
    // weight, so 1 is a zero one; larger values make the random model's
    // attention scores and logits large enough for soft-caps and rope to show.
    float norm_weight = 1.0f;
    // A mixture of experts in place of the dense feed-forward (0: dense):
    // n_expert experts of which each token uses n_expert_used, each n_ff_exp
    // wide (qwen3moe's expert_feed_forward_length; Mixtral's experts are n_ff
    // wide, 0 here stands for that).
    int64_t n_expert = 0, n_expert_used = 0, n_ff_exp = 0;

    int64_t head_dim() const { return n_head_dim > 0 ? n_head_dim : n_head > 0 ? n_embd / n_head : 0; }
    int64_t rope_dims() const { return n_rot > 0 ? n_rot : head_dim(); }
    int64_t expert_width() const { return n_ff_exp > 0 ? n_ff_exp : n_ff; }
    // Throws an Error naming the first inconsistent field.
    void check() const;
    // Parameters of the weight matrices and embeddings (what the file stores, norms and biases aside).
    int64_t n_params() const;
};

// tinyllama-1.1b, llama-2-7b, llama-2-70b (GQA, 8 KV heads), llama-3-8b, llama-3.2-1b, llama-3.1-8b,
// qwen3-0.6b, qwen3-8b, qwen3-30b-a3b, mixtral-8x7b, gemma-3-1b, gemma-3-4b,
// gemma-2-2b, phi-3-mini: their published hyperparameters (the Llama 3 shapes with a SentencePiece
// vocabulary of their 128256 tokens in place of their BPE one).
std::optional<ModelShape> preset_shape(std::string_view name);
std::vector<std::string> preset_shape_names();
// The architecture make-model writes a preset in unless told otherwise:
// gemma3, gemma2 and phi3 for those presets, qwen3moe for qwen3-30b-a3b,
// llama for the others.
std::string preset_architecture(std::string_view name);
// Where --shape custom starts for an architecture: the traits all its real
// models share (Gemma: tied output, RMS epsilon 1e-6; Gemma 2: window 4096,
// soft-caps 50 and 30; Gemma 3: rope bases 1e6 and 1e4, window 512).
ModelShape custom_shape(std::string_view arch);

struct SyntheticModel {
    ModelShape shape;
    // An architecture tessera describes: its keys and tensors (optional ones
    // where the shape asks: rope_freqs, an untied output), random biases
    // where it requires them; the vocabulary is the kind its real models ship
    // (SentencePiece for llama and phi3, SentencePiece with Gemma's special
    // tokens for gemma2 and gemma3, byte-level BPE with the qwen2
    // pre-tokenizer for qwen2, qwen3 and qwen3moe). The keys are those
    // llama.cpp's converter writes for the family (expert counts only for a
    // mixture of experts). Weights are typed as llama-quantize types them
    // (the experts' 3-D tensors row by row like matrices, the router F32).
    std::string arch = "llama";
    QuantizePlan plan;  // weight types, as `tessera quantize` chooses them
    uint64_t seed = 1;
};

struct SyntheticReport {
    uint64_t tensor_bytes = 0;
    // "name (TYPE)" of each weight whose rows do not fit the plan's block and
    // that got a fallback type instead (as `tessera quantize` chooses one).
    std::vector<std::string> fallbacks;
};

// Writes the model to path; progress(done_bytes, total_bytes) after each tensor.
SyntheticReport write_synthetic_model(const SyntheticModel& model, const std::string& path,
                                      const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

}  // namespace tessera::model
