// `tessera make-model`: a synthetic model of a real model's shape, of any
// architecture tessera describes.
#include <cstdio>
#include <memory>
#include <optional>

#include "kernels/quant/ggml_type.hpp"
#include "models/synthetic_model.hpp"
#include "support/error.hpp"
#include "tools/commands.hpp"

namespace tessera::cli {
namespace {

struct MakeModelOptions {
    std::string shape, arch, type = "Q4_0", out;  // arch "": the preset's (llama for custom)
    model::ModelShape custom;  // fields given on the command line (0: from the preset)
    float rope_base = 0.0f;
    std::optional<float> rope_base_swa, attn_softcap, final_softcap, rope_scale, norm_weight;
    std::optional<int64_t> head_dim, sliding_window;
    uint64_t seed = 1;
    bool quiet = false;
};

std::string resolve_arch(const MakeModelOptions& o) {
    if (!o.arch.empty()) return o.arch;
    return o.shape == "custom" ? "llama" : model::preset_architecture(o.shape);
}

model::ModelShape resolve_shape(const MakeModelOptions& o) {
    model::ModelShape s;
    if (o.shape != "custom") {
        const auto preset = model::preset_shape(o.shape);
        if (!preset) {
            std::string names;
            for (const auto& n : model::preset_shape_names()) names += n + ", ";
            throw Error("unknown shape '" + o.shape + "'; known: " + names + "or custom (with --n-* options)");
        }
        s = *preset;
    } else {
        s = model::custom_shape(resolve_arch(o));
    }
    const model::ModelShape& c = o.custom;
    for (auto [field, given] : {std::pair{&s.n_vocab, c.n_vocab}, {&s.n_embd, c.n_embd}, {&s.n_layer, c.n_layer},
                                {&s.n_head, c.n_head}, {&s.n_head_kv, c.n_head_kv}, {&s.n_ff, c.n_ff},
                                {&s.n_ctx, c.n_ctx}, {&s.n_expert, c.n_expert}, {&s.n_expert_used, c.n_expert_used},
                                {&s.n_ff_exp, c.n_ff_exp}})
        if (given != 0) *field = given;
    if (o.rope_base > 0.0f) s.rope_base = o.rope_base;
    if (o.head_dim) s.n_head_dim = *o.head_dim;
    if (o.sliding_window) s.sliding_window = *o.sliding_window;
    if (o.rope_base_swa) s.rope_base_swa = *o.rope_base_swa;
    if (o.attn_softcap) s.attn_softcap = *o.attn_softcap;
    if (o.final_softcap) s.final_softcap = *o.final_softcap;
    if (o.rope_scale) s.linear_rope_factor = *o.rope_scale;
    if (o.norm_weight) s.norm_weight = *o.norm_weight;
    if (o.shape == "custom" && s.n_head_kv == 0) s.n_head_kv = s.n_head;
    s.check();
    return s;
}

void run_make_model(const MakeModelOptions& o) {
    model::SyntheticModel m{
        .shape = resolve_shape(o), .arch = resolve_arch(o), .plan = QuantizePlan::parse(o.type), .seed = o.seed};
    if (!o.quiet)
        std::fprintf(stderr, "%s: %s %s, %.2f B parameters, %s\n", o.out.c_str(), m.arch.c_str(),
                     m.shape.name.c_str(), double(m.shape.n_params()) / 1e9, m.plan.name().c_str());
    int shown = -1;
    const model::SyntheticReport report = model::write_synthetic_model(m, o.out, [&](uint64_t done, uint64_t total) {
        const int percent = total > 0 ? int(100 * done / total) : 100;
        if (o.quiet || percent == shown) return;
        shown = percent;
        std::fprintf(stderr, "\rwriting %s: %3d%% of %.1f MiB", o.out.c_str(), percent, double(total) / (1 << 20));
    });
    if (!o.quiet)
        std::fprintf(stderr, "\n%s: %.1f MiB of tensors\n", o.out.c_str(), double(report.tensor_bytes) / (1 << 20));
    // Even with -q: the file's type name promises what these tensors are not.
    if (!report.fallbacks.empty()) {
        const auto block = ggml_type_traits(m.plan.target).block_elems;
        std::string names;
        for (size_t i = 0; i < report.fallbacks.size() && i < 4; ++i) names += (i ? ", " : "") + report.fallbacks[i];
        if (report.fallbacks.size() > 4) names += " and " + std::to_string(report.fallbacks.size() - 4) + " more";
        std::fprintf(stderr,
                     "warning: %zu weight%s of %s have rows that are not a multiple of %s's block of %llu values; "
                     "written in another type instead: %s\n",
                     report.fallbacks.size(), report.fallbacks.size() > 1 ? "s" : "", o.out.c_str(),
                     m.plan.name().c_str(), static_cast<unsigned long long>(block), names.c_str());
    }
}

}  // namespace

void add_make_model_command(CLI::App& app) {
    auto o = std::make_shared<MakeModelOptions>();
    auto* cmd = app.add_subcommand(
        "make-model", "Write a model with random weights in a real model's shape and a generated vocabulary "
                      "(for benchmarks and tests; llama.cpp loads it too)");
    cmd->add_option("--shape", o->shape,
                    "tinyllama-1.1b, llama-2-7b, llama-2-70b, llama-3-8b, llama-3.2-1b, llama-3.1-8b (llama3 rope_freqs; 1b with "
                    "tied embeddings), qwen3-0.6b, qwen3-8b, qwen3-30b-a3b (qwen3moe), mixtral-8x7b, gemma-3-1b, gemma-3-4b, gemma-2-2b, phi-3-mini, or custom")
        ->required();
    cmd->add_option("--arch", o->arch,
                    "Architecture: llama, qwen2 (biases on q/k/v, NEOX rope, BPE vocabulary), qwen3 (per-head q/k "
                    "norms, NEOX rope, BPE vocabulary), qwen3moe (qwen3 with experts), gemma2, gemma3 or phi3 "
                    "(default: the preset's family for the gemma, phi and qwen3-30b-a3b presets, llama otherwise)");
    cmd->add_option("--type", o->type, "Weight type (Q4_0, Q8_0, F16, ...) or mix (Q4_K_M, Q5_K_M)")
        ->capture_default_str();
    cmd->add_option("-o,--output", o->out, "Output GGUF file")->required();
    cmd->add_option("--seed", o->seed, "Seed of the random weights")->capture_default_str();
    cmd->add_option("--n-vocab", o->custom.n_vocab, "Vocabulary size (overrides the shape's)");
    cmd->add_option("--n-embd", o->custom.n_embd, "Embedding width");
    cmd->add_option("--n-layer", o->custom.n_layer, "Layers");
    cmd->add_option("--n-head", o->custom.n_head, "Attention heads");
    cmd->add_option("--n-head-kv", o->custom.n_head_kv, "Key/value heads (custom default: n_head)");
    cmd->add_option("--n-ff", o->custom.n_ff, "Feed-forward width");
    cmd->add_option("--n-ctx", o->custom.n_ctx, "Training context length");
    cmd->add_option("--n-expert", o->custom.n_expert, "Experts of a mixture of experts (llama: Mixtral; qwen3moe)");
    cmd->add_option("--n-expert-used", o->custom.n_expert_used, "Experts each token uses");
    cmd->add_option("--n-ff-exp", o->custom.n_ff_exp, "Width of an expert (qwen3moe; default n_ff; Mixtral's are n_ff)");
    cmd->add_option("--rope-base", o->rope_base, "Rope frequency base");
    cmd->add_option("--head-dim", o->head_dim, "Width of an attention head (default: n_embd / n_head)");
    cmd->add_option("--sliding-window", o->sliding_window, "Window of the sliding-window layers (Gemma)");
    cmd->add_option("--rope-base-swa", o->rope_base_swa, "Rope frequency base of the sliding-window layers");
    cmd->add_option("--attn-softcap", o->attn_softcap, "Soft-cap of the attention scores (Gemma 2)");
    cmd->add_option("--final-softcap", o->final_softcap, "Soft-cap of the logits (Gemma 2)");
    cmd->add_option("--rope-scale", o->rope_scale, "Linear rope scaling factor (rope.scaling.type linear)");
    cmd->add_option("--norm-weight", o->norm_weight, "Value of every norm weight (default 1)");
    cmd->add_flag("-q,--quiet", o->quiet, "No progress");
    cmd->callback([o] { run_make_model(*o); });
}

}  // namespace tessera::cli
