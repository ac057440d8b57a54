#include "models/synthetic_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <variant>

#include "kernels/quant/registry.hpp"
#include "models/architecture.hpp"
#include "models/gguf/writer.hpp"
#include "models/synthetic_vocab.hpp"
#include "support/error.hpp"

namespace tessera::model {
namespace {

// The standard deviation of the random weights (uniform), about that of trained Llama weights.
constexpr float kWeightStd = 0.02f;
// That of the random biases: larger, so that they shape the attention scores
// visibly (q and k are products of normed activations with kWeightStd weights).
constexpr float kBiasStd = 0.5f;

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Row r of a tensor: uniform values in [-a, a] (standard deviation `std`) from
// a generator seeded by (seed, tensor, row), so that rows can be made in any order.
void random_row(uint64_t seed, uint64_t tensor, int64_t row, float std, std::span<float> out) {
    const float a = std * std::sqrt(3.0f);
    uint64_t state = splitmix64(seed ^ splitmix64(tensor * 0x100000001B3ull + uint64_t(row)));
    for (float& v : out) {
        state = splitmix64(state);
        v = a * (float(state >> 40) * (2.0f / float(1 << 24)) - 1.0f);
    }
}

bool is_gemma(std::string_view arch) { return arch == "gemma2" || arch == "gemma3"; }

// The vocabulary kind real models of the architecture ship with.
void add_vocabulary(gguf::Writer& w, std::string_view arch, int64_t n_vocab) {
    if (arch == "qwen2" || arch == "qwen3" || arch == "qwen3moe") add_bpe_vocabulary(w, n_vocab, "qwen2");
    else if (is_gemma(arch)) add_spm_vocabulary(w, n_vocab, SpmSpecials::Gemma);
    else add_spm_vocabulary(w, n_vocab, arch == "phi3" ? SpmSpecials::Phi3 : SpmSpecials::Llama);
}

// The description's hyperparameters for a shape.
HParamValues hparam_values(const ModelShape& s) {
    return {{"n_embd", double(s.n_embd)},
            {"n_layer", double(s.n_layer)},
            {"n_head", double(s.n_head)},
            {"n_head_kv", double(s.n_head_kv)},
            {"head_dim", double(s.head_dim())},
            {"n_ff", double(s.n_ff)},
            {"n_ctx_train", double(s.n_ctx)},
            {"n_vocab", double(s.n_vocab)},
            {"rms_eps", double(s.rms_eps)},
            {"rope_base", double(s.rope_base)},
            {"n_rot", double(s.rope_dims())},
            {"head_dim_v", double(s.head_dim())},
            {"sliding_window", double(s.sliding_window)},
            {"rope_base_swa", double(s.rope_base_swa > 0 ? s.rope_base_swa : s.rope_base)},
            {"attn_softcap", double(s.attn_softcap)},
            {"final_softcap", double(s.final_softcap)},
            {"n_ctx_orig", double(s.n_ctx_orig > 0 ? s.n_ctx_orig : s.n_ctx)},
            {"rope_attn_factor", 1.0},
            {"n_expert", double(s.n_expert)},
            {"n_expert_used", double(s.n_expert_used)},
            {"n_ff_exp", double(s.expert_width())}};
}

// The description's hyperparameters llama.cpp's converter leaves out of a
// family's files (gemma2: no rope keys; gemma3: no rope.dimension_count, no
// final soft-cap; phi3: no key/value lengths, no attn_factor short of long
// rope factors; any family: the expert counts of a dense model). The key is
// written all the same where the shape's value is not what a reader assumes
// without it.
bool converter_omits(std::string_view arch, std::string_view hparam) {
    if (hparam == "n_expert" || hparam == "n_expert_used") return true;
    if (arch == "gemma2") return hparam == "rope_base" || hparam == "rope_base_swa" || hparam == "n_rot";
    if (arch == "gemma3") return hparam == "n_rot" || hparam == "final_softcap" || hparam == "sliding_window";
    if (arch == "phi3") return hparam == "head_dim" || hparam == "head_dim_v" || hparam == "rope_attn_factor";
    return false;
}

// The value a reader takes for a hyperparameter whose key is absent (NaN: none, the key is required).
double fallback_value(const HParam& h, const HParamValues& values) {
    if (h.fallback) return *h.fallback;
    if (!h.fallback_expr.empty()) return eval_hparam_expr(h.fallback_expr, values, h.name);
    return std::nan("");
}

// Whether the file gets an optional tensor of the description.
bool wants_optional(const ModelShape& s, std::string_view role) {
    if (role == "output") return !s.tied_output;
    if (role == "rope_freqs") return s.llama3_rope.has_value();
    return false;
}

// The type llama-quantize gives a weight of an F32 model under the plan.
GgmlType weight_type(const std::string& name, int64_t row_elems, const ModelShape& s, const QuantizePlan& plan,
                     bool& fallback) {
    const QuantizeFacts facts{.n_layer = s.n_layer, .n_expert = s.n_expert, .output_tied = s.tied_output};
    return choose_model_tensor_type(name, uint64_t(row_elems), 2, GgmlType::F32, plan, facts, fallback);
}

}  // namespace

void ModelShape::check() const {
    auto need = [&](bool ok, const std::string& what) {
        if (!ok) throw Error("model shape '" + name + "': " + what);
    };
    need(n_vocab >= 259 + 1, "n_vocab must be at least 260 (3 special and 256 byte tokens, and one more)");
    need(n_embd > 0 && n_layer > 0 && n_ff > 0 && n_ctx > 0, "n_embd, n_layer, n_ff and n_ctx must be positive");
    need(n_head > 0 && (n_head_dim > 0 || n_embd % n_head == 0), "n_embd must be a multiple of n_head");
    need(head_dim() % 2 == 0, "head_dim must be even for rope");
    need(n_head_kv > 0 && n_head % n_head_kv == 0, "n_head must be a multiple of n_head_kv");
    need(n_embd % 32 == 0 && n_ff % 32 == 0, "n_embd and n_ff must be multiples of 32 (quant blocks)");
    need(n_expert >= 0 && n_expert_used >= 0 && n_ff_exp >= 0, "expert counts and widths must not be negative");
    need((n_expert == 0) == (n_expert_used == 0) && n_expert_used <= n_expert,
         "a mixture of experts needs 1 to n_expert used experts (and a dense model neither)");
    need(n_ff_exp % 32 == 0, "n_ff_exp must be a multiple of 32 (quant blocks)");
}

int64_t ModelShape::n_params() const {
    const int64_t q = n_head * head_dim(), kv = n_head_kv * head_dim();
    const int64_t ffn = n_expert > 0 ? n_expert * (3 * n_embd * expert_width() + n_embd) : 3 * n_embd * n_ff;
    const int64_t per_layer = 2 * n_embd * q + 2 * n_embd * kv + ffn;
    return (tied_output ? 1 : 2) * n_vocab * n_embd + n_layer * per_layer;
}

std::vector<float> Llama3RopeScaling::freq_divisors(int64_t n_rot, float rope_base) const {
    const double pi = 3.14159265358979323846;
    const double low_wavelen = double(original_context) / low_freq_factor;
    const double high_wavelen = double(original_context) / high_freq_factor;
    std::vector<float> divisors;
    for (int64_t i = 0; i < n_rot / 2; ++i) {
        const double freq = std::pow(double(rope_base), -2.0 * double(i) / double(n_rot));
        const double wavelen = 2 * pi / freq;
        double divisor = 1.0;
        if (wavelen > low_wavelen) {
            divisor = factor;
        } else if (wavelen >= high_wavelen) {
            const double smooth =
                (double(original_context) / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
            divisor = 1.0 / ((1.0 - smooth) / factor + smooth);
        }
        divisors.push_back(float(divisor));
    }
    return divisors;
}

std::optional<ModelShape> preset_shape(std::string_view name) {
    if (name == "tinyllama-1.1b") return ModelShape{std::string(name), 32000, 2048, 22, 32, 4, 5632, 2048};
    if (name == "llama-2-7b") return ModelShape{std::string(name), 32000, 4096, 32, 32, 32, 11008, 4096};
    if (name == "llama-2-70b") return ModelShape{std::string(name), 32000, 8192, 80, 64, 8, 28672, 4096};
    if (name == "llama-3-8b") return ModelShape{std::string(name), 128256, 4096, 32, 32, 8, 14336, 8192, 500000.0f};
    if (name == "llama-3.2-1b")
        return ModelShape{.name = std::string(name), .n_vocab = 128256, .n_embd = 2048, .n_layer = 16, .n_head = 32,
                          .n_head_kv = 8, .n_ff = 8192, .n_ctx = 131072, .rope_base = 500000.0f, .tied_output = true,
                          .llama3_rope = Llama3RopeScaling{.factor = 32}};
    if (name == "llama-3.1-8b")
        return ModelShape{.name = std::string(name), .n_vocab = 128256, .n_embd = 4096, .n_layer = 32, .n_head = 32,
                          .n_head_kv = 8, .n_ff = 14336, .n_ctx = 131072, .rope_base = 500000.0f,
                          .llama3_rope = Llama3RopeScaling{.factor = 8}};
    if (name == "qwen3-0.6b")
        return ModelShape{.name = std::string(name), .n_vocab = 151936, .n_embd = 1024, .n_layer = 28, .n_head = 16,
                          .n_head_kv = 8, .n_ff = 3072, .n_ctx = 40960, .rope_base = 1000000.0f, .rms_eps = 1e-6f,
                          .n_head_dim = 128, .tied_output = true};
    if (name == "qwen3-8b")
        return ModelShape{.name = std::string(name), .n_vocab = 151936, .n_embd = 4096, .n_layer = 36, .n_head = 32,
                          .n_head_kv = 8, .n_ff = 12288, .n_ctx = 40960, .rope_base = 1000000.0f, .rms_eps = 1e-6f,
                          .n_head_dim = 128};
    // Mixtures of experts. Qwen3-30B-A3B: feed_forward_length is the
    // config's dense intermediate_size, which no tensor uses.
    if (name == "qwen3-30b-a3b")
        return ModelShape{.name = std::string(name), .n_vocab = 151936, .n_embd = 2048, .n_layer = 48, .n_head = 32,
                          .n_head_kv = 4, .n_ff = 6144, .n_ctx = 40960, .rope_base = 1000000.0f, .rms_eps = 1e-6f,
                          .n_head_dim = 128, .n_expert = 128, .n_expert_used = 8, .n_ff_exp = 768};
    if (name == "mixtral-8x7b")
        return ModelShape{.name = std::string(name), .n_vocab = 32000, .n_embd = 4096, .n_layer = 32, .n_head = 32,
                          .n_head_kv = 8, .n_ff = 14336, .n_ctx = 32768, .rope_base = 1000000.0f, .n_expert = 8,
                          .n_expert_used = 2};
    // Gemma 3 and 2: the text model of each config.json, as llama.cpp's
    // converter writes it (rope.freq_base_swa from rope_local_base_freq,
    // Gemma-3-4B's linear rope scaling of its global layers).
    if (name == "gemma-3-1b")
        return ModelShape{.name = std::string(name), .n_vocab = 262144, .n_embd = 1152, .n_layer = 26, .n_head = 4,
                          .n_head_kv = 1, .n_ff = 6912, .n_ctx = 32768, .rope_base = 1000000.0f, .rms_eps = 1e-6f,
                          .n_head_dim = 256, .tied_output = true, .sliding_window = 512, .rope_base_swa = 10000.0f};
    if (name == "gemma-3-4b")
        return ModelShape{.name = std::string(name), .n_vocab = 262144, .n_embd = 2560, .n_layer = 34, .n_head = 8,
                          .n_head_kv = 4, .n_ff = 10240, .n_ctx = 131072, .rope_base = 1000000.0f, .rms_eps = 1e-6f,
                          .n_head_dim = 256, .tied_output = true, .sliding_window = 1024, .rope_base_swa = 10000.0f,
                          .linear_rope_factor = 8.0f};
    if (name == "gemma-2-2b")
        return ModelShape{.name = std::string(name), .n_vocab = 256000, .n_embd = 2304, .n_layer = 26, .n_head = 8,
                          .n_head_kv = 4, .n_ff = 9216, .n_ctx = 8192, .rms_eps = 1e-6f, .n_head_dim = 256,
                          .tied_output = true, .sliding_window = 4096, .attn_softcap = 50.0f, .final_softcap = 30.0f};
    // Phi-3-mini-4k: 32064 tokens (32000 SentencePiece ones, the rest added
    // and padding), a window of 2047 in the file that no reader uses.
    if (name == "phi-3-mini")
        return ModelShape{.name = std::string(name), .n_vocab = 32064, .n_embd = 3072, .n_layer = 32, .n_head = 32,
                          .n_head_kv = 32, .n_ff = 8192, .n_ctx = 4096, .sliding_window = 2047, .n_ctx_orig = 4096};
    return std::nullopt;
}

std::vector<std::string> preset_shape_names() {
    return {"tinyllama-1.1b", "llama-2-7b", "llama-2-70b", "llama-3-8b", "llama-3.2-1b", "llama-3.1-8b", "qwen3-0.6b",
            "qwen3-8b",       "qwen3-30b-a3b", "mixtral-8x7b", "gemma-3-1b", "gemma-3-4b", "gemma-2-2b",
            "phi-3-mini"};
}

std::string preset_architecture(std::string_view name) {
    if (name.starts_with("gemma-3-")) return "gemma3";
    if (name.starts_with("gemma-2-")) return "gemma2";
    if (name.starts_with("phi-3-")) return "phi3";
    if (name == "qwen3-30b-a3b") return "qwen3moe";
    return "llama";
}

ModelShape custom_shape(std::string_view arch) {
    ModelShape s{.name = "custom"};
    if (arch == "gemma2" || arch == "gemma3") {
        s.tied_output = true;
        s.rms_eps = 1e-6f;
    }
    if (arch == "gemma2") {
        s.sliding_window = 4096;
        s.attn_softcap = 50.0f;
        s.final_softcap = 30.0f;
    }
    if (arch == "gemma3") {
        s.rope_base = 1000000.0f;
        s.rope_base_swa = 10000.0f;
        s.sliding_window = 512;
    }
    return s;
}

SyntheticReport write_synthetic_model(const SyntheticModel& model, const std::string& path,
                                      const std::function<void(uint64_t, uint64_t)>& progress) {
    const ModelShape& s = model.shape;
    s.check();
    const Architecture* arch = find_architecture(model.arch);
    if (arch == nullptr)
        throw Error("architecture '" + model.arch + "' is not supported (tessera knows: " +
                    std::string(known_architectures()) + ")");
    const std::string arch_name(arch->name);
    // What llama.cpp needs of these families' files: Gemma reads the logits
    // through the embedding (Gemma 2 never loads output.weight), and Gemma
    // 2's soft-caps divide by their values.
    if (is_gemma(arch_name) && !s.tied_output)
        throw Error("model shape '" + s.name + "': " + arch_name + " ties the output to the embedding");
    if (arch_name == "gemma2" && !(s.attn_softcap > 0 && s.final_softcap > 0 && s.sliding_window > 0))
        throw Error("model shape '" + s.name + "': gemma2 needs both soft-caps and a sliding window");
    const bool has_experts = std::ranges::any_of(arch->layer, [](const TensorSpec& t) { return t.role == "ffn_gate_inp"; });
    const bool needs_experts = std::ranges::any_of(arch->layer, [](const TensorSpec& t) {
        return t.role == "ffn_gate_inp" && t.when.empty();
    });
    if (s.n_expert > 0 && !has_experts)
        throw Error("model shape '" + s.name + "': " + arch_name + " has no mixture of experts");
    if (s.n_expert == 0 && needs_experts)
        throw Error("model shape '" + s.name + "': " + arch_name + " needs experts (n_expert, n_expert_used)");
    const HParamValues values = hparam_values(s);
    using gguf::Value;
    gguf::Writer w;
    w.add_kv("general.architecture", Value{arch_name});
    w.add_kv("general.name", Value{s.name + " (synthetic, " + model.plan.name() + ")"});
    for (const HParam& h : arch->hparams) {
        if (h.source == Source::ArrayLength) continue;  // the token list's length: the vocabulary
        const auto it = values.find(h.name);
        if (it == values.end())
            throw Error("make-model has no value for hyperparameter '" + std::string(h.name) + "' of " + arch_name);
        if (converter_omits(arch_name, h.name) && fallback_value(h, values) == it->second) continue;
        if (h.source == Source::Float) w.add_kv(h.key_for(arch_name), Value{float(it->second)});
        else w.add_kv(h.key_for(arch_name), Value{uint32_t(it->second)});
    }
    // Keys beyond the description: rope scaling (read by Model itself), and
    // the window Phi-3's converter writes though neither reader uses it.
    if (s.linear_rope_factor > 0) {
        w.add_kv(arch_name + ".rope.scaling.type", Value{std::string("linear")});
        w.add_kv(arch_name + ".rope.scaling.factor", Value{s.linear_rope_factor});
    }
    if (arch_name == "phi3") w.add_kv(arch_name + ".attention.sliding_window", Value{uint32_t(s.sliding_window)});
    // The Llama converter's key; Gemma's and Phi-3's write none.
    if (!is_gemma(arch_name) && arch_name != "phi3")
        w.add_kv(arch_name + ".vocab_size", Value{uint32_t(s.n_vocab)});
    w.add_kv("general.quantization_version", Value{uint32_t{2}});
    if (const auto ftype = model.plan.llama_file_type()) w.add_kv("general.file_type", Value{*ftype});
    add_vocabulary(w, arch_name, s.n_vocab);

    uint64_t tensor_index = 0;
    SyntheticReport report;
    uint64_t& bytes = report.tensor_bytes;
    // A matrix (ne = {row_elems, rows}) or a stack of them (ne = {row_elems,
    // rows, n}: the experts) of random values in the plan's type for it, row by row.
    auto matrix = [&](const std::string& name, std::vector<uint64_t> ne) {
        const auto row_elems = int64_t(ne[0]);
        int64_t rows = 1;
        for (size_t i = 1; i < ne.size(); ++i) rows *= int64_t(ne[i]);
        bool fallback = false;
        const GgmlType type = weight_type(name, row_elems, s, model.plan, fallback);
        const QuantTypeEntry& entry = require_quant_type(type, name);
        if (fallback) report.fallbacks.push_back(name + " (" + std::string(entry.traits.name) + ")");
        const size_t row_bytes = entry.row_bytes(row_elems);
        bytes += row_bytes * size_t(rows);
        w.add_tensor(name, type, ne,
                     [=, seed = model.seed, index = tensor_index++](std::span<uint8_t> dst) {
#pragma omp parallel
                         {
                             std::vector<float> values(static_cast<size_t>(row_elems));
#pragma omp for schedule(dynamic, 16)
                             for (int64_t r = 0; r < rows; ++r) {
                                 random_row(seed, index, r, kWeightStd, values);
                                 entry.quantize_row(values.data(), dst.data() + size_t(r) * row_bytes, row_elems);
                             }
                         }
                     });
    };
    // An F32 vector: a norm's scales (norm_weight), a bias (random, kBiasStd), or given values.
    enum class Fill { Norm, RandomBias };
    auto f32_vector = [&](const std::string& name, std::variant<Fill, std::vector<float>> fill, int64_t n) {
        bytes += 4 * size_t(n);
        w.add_tensor(name, GgmlType::F32, {uint64_t(n)},
                     [=, seed = model.seed, index = tensor_index++](std::span<uint8_t> dst) {
                         std::vector<float> values(size_t(n), s.norm_weight);
                         if (const auto* given = std::get_if<std::vector<float>>(&fill)) values = *given;
                         else if (std::get<Fill>(fill) == Fill::RandomBias) random_row(seed, index, 0, kBiasStd, values);
                         std::memcpy(dst.data(), values.data(), dst.size());
                     });
    };
    // Every tensor of the description that the shape has (its when/unless
    // condition holds), optional ones where the shape wants them; biases
    // where required.
    auto add_spec = [&](const TensorSpec& spec, int layer) {
        if (spec.optional && !wants_optional(s, spec.role)) return;
        const std::string name = spec.name_in(layer);
        auto dim = [&](std::string_view expr) { return int64_t(eval_hparam_expr(expr, values, name)); };
        if (!spec.when.empty() && dim(spec.when) == 0) return;
        if (!spec.unless.empty() && dim(spec.unless) != 0) return;
        if (spec.role == "rope_freqs") {
            f32_vector(name, s.llama3_rope->freq_divisors(s.rope_dims(), s.rope_base), dim(spec.shape[0]));
            return;
        }
        if (spec.shape[1].empty()) {
            f32_vector(name, Fill::Norm, dim(spec.shape[0]));
            return;
        }
        std::vector<uint64_t> ne;
        for (std::string_view d : spec.shape)
            if (!d.empty()) ne.push_back(uint64_t(dim(d)));
        matrix(name, ne);
        if (spec.bias == Bias::Required) f32_vector(spec.bias_name_in(layer), Fill::RandomBias, dim(spec.shape[1]));
    };
    for (const TensorSpec& spec : arch->globals) add_spec(spec, -1);
    for (int l = 0; l < int(s.n_layer); ++l)
        for (const TensorSpec& spec : arch->layer) add_spec(spec, l);
    w.write(path, progress);
    return report;
}

}  // namespace tessera::model
