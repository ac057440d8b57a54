// Llama and the models that share its GGUF layout (Llama-2/3, TinyLlama,
// Mistral): pre-norm blocks with RMS norm, rotary (adjacent-pair) attention
// with grouped-query heads, SwiGLU feed-forward. Projections may carry biases
// (llama.cpp loads them when present; the released Llama models have none).
// Llama-3.1 and later store their "llama3" rope scaling as rope_freqs, one
// divisor of each rotated pair's frequency. A file with llama.expert_count
// (Mixtral) has a mixture of experts of n_ff each in place of the dense
// feed-forward, renormalized over the chosen experts.
#include "models/architectures/standard_decoder.hpp"

namespace tessera::model::architectures {

namespace {

constexpr TensorSpec kGlobals[] = {
    {.role = "token_embd", .name = "token_embd.weight", .shape = {"n_embd", "n_vocab"}},
    {.role = "output_norm", .name = "output_norm.weight", .shape = {"n_embd"}},
    {.role = "output", .name = "output.weight", .shape = {"n_embd", "n_vocab"}, .optional = true,
     .tied_to = "token_embd"},
    {.role = "rope_freqs", .name = "rope_freqs.weight", .shape = {"n_rot/2"}, .optional = true},
};

constexpr HParam kOwn[] = {kExpertCount, kExpertUsedCount};
constexpr auto kHParams = with_standard_hparams(kOwn);

using namespace layer_tensors;
constexpr TensorSpec kLayer[] = {
    attn_norm,
    attn_q(Bias::Optional),
    attn_k(Bias::Optional),
    attn_v(Bias::Optional),
    attn_output(Bias::Optional),
    ffn_norm,
    unless("n_expert", ffn_gate(Bias::Optional)),
    unless("n_expert", ffn_up(Bias::Optional)),
    unless("n_expert", ffn_down(Bias::Optional)),
    when("n_expert", ffn_gate_inp),
    when("n_expert", ffn_gate_exps("n_ff")),
    when("n_expert", ffn_up_exps("n_ff")),
    when("n_expert", ffn_down_exps("n_ff")),
};

Tensor* block(Layer& layer, Tensor* x) { return pre_norm_block(layer, x, {.rope = cpu::RopeMode::Normal}); }

}  // namespace

extern const Architecture llama{.name = "llama",
                                .hparams = kHParams,
                                .globals = kGlobals,
                                .layer = kLayer,
                                .block = block};

}  // namespace tessera::model::architectures
