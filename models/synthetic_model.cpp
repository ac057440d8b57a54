#include "models/synthetic_model.hpp"

#include <cmath>
#include <cstring>

#include "kernels/quant/registry.hpp"
#include "models/gguf/writer.hpp"
#include "support/error.hpp"

namespace tessera::model {
namespace {

// The standard deviation of the random weights (uniform), about that of trained Llama weights.
constexpr float kWeightStd = 0.02f;

uint64_t splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Row r of a tensor: uniform values in [-a, a] (std kWeightStd) from a
// generator seeded by (seed, tensor, row), so that rows can be made in any order.
void random_row(uint64_t seed, uint64_t tensor, int64_t row, std::span<float> out) {
    const float a = kWeightStd * std::sqrt(3.0f);
    uint64_t state = splitmix64(seed ^ splitmix64(tensor * 0x100000001B3ull + uint64_t(row)));
    for (float& v : out) {
        state = splitmix64(state);
        v = a * (float(state >> 40) * (2.0f / float(1 << 24)) - 1.0f);
    }
}

// Bijective base 26: 0 -> "a", 25 -> "z", 26 -> "aa", ...
std::string letters(uint64_t i) {
    std::string s;
    for (++i; i > 0; i = (i - 1) / 26) s.insert(s.begin(), char('a' + (i - 1) % 26));
    return s;
}

// <unk>, <s>, </s>, the 256 byte tokens, then distinct pieces (every other
// one with the word-start mark) with decreasing scores.
void add_vocabulary(gguf::Writer& w, int64_t n_vocab) {
    using gguf::Array, gguf::Value, gguf::ValueType;
    Array tokens{ValueType::STRING, {}}, scores{ValueType::FLOAT32, {}}, types{ValueType::INT32, {}};
    auto add = [&](std::string piece, float score, int32_t type) {
        tokens.items.push_back(Value{std::move(piece)});
        scores.items.push_back(Value{score});
        types.items.push_back(Value{type});
    };
    add("<unk>", 0.0f, 2);  // token types: 1 normal, 2 unknown, 3 control, 6 byte
    add("<s>", 0.0f, 3);
    add("</s>", 0.0f, 3);
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        add(hex, 0.0f, 6);
    }
    for (int64_t j = 0; int64_t(tokens.items.size()) < n_vocab; ++j)
        add((j % 2 == 0 ? "\xE2\x96\x81" : "") + letters(uint64_t(j / 2)), -float(j), 1);
    w.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    w.add_kv("tokenizer.ggml.pre", Value{std::string("default")});
    w.add_kv("tokenizer.ggml.tokens", Value{std::move(tokens)});
    w.add_kv("tokenizer.ggml.scores", Value{std::move(scores)});
    w.add_kv("tokenizer.ggml.token_type", Value{std::move(types)});
    w.add_kv("tokenizer.ggml.bos_token_id", Value{uint32_t{1}});
    w.add_kv("tokenizer.ggml.eos_token_id", Value{uint32_t{2}});
    w.add_kv("tokenizer.ggml.unknown_token_id", Value{uint32_t{0}});
    w.add_kv("tokenizer.ggml.add_bos_token", Value{true});
    w.add_kv("tokenizer.ggml.add_eos_token", Value{false});
}

}  // namespace

void ModelShape::check() const {
    auto need = [&](bool ok, const std::string& what) {
        if (!ok) throw Error("model shape '" + name + "': " + what);
    };
    need(n_vocab >= 259 + 1, "n_vocab must be at least 260 (3 special and 256 byte tokens, and one more)");
    need(n_embd > 0 && n_layer > 0 && n_ff > 0 && n_ctx > 0, "n_embd, n_layer, n_ff and n_ctx must be positive");
    need(n_head > 0 && n_embd % n_head == 0, "n_embd must be a multiple of n_head");
    need(head_dim() % 2 == 0, "head_dim (n_embd / n_head) must be even for rope");
    need(n_head_kv > 0 && n_head % n_head_kv == 0, "n_head must be a multiple of n_head_kv");
    need(n_embd % 32 == 0 && n_ff % 32 == 0, "n_embd and n_ff must be multiples of 32 (quant blocks)");
}

int64_t ModelShape::n_params() const {
    const int64_t kv = n_head_kv * head_dim();
    const int64_t per_layer = 2 * n_embd * n_embd + 2 * n_embd * kv + 3 * n_embd * n_ff;
    return 2 * n_vocab * n_embd + n_layer * per_layer;
}

std::optional<ModelShape> preset_shape(std::string_view name) {
    if (name == "tinyllama-1.1b") return ModelShape{std::string(name), 32000, 2048, 22, 32, 4, 5632, 2048};
    if (name == "llama-2-7b") return ModelShape{std::string(name), 32000, 4096, 32, 32, 32, 11008, 4096};
    if (name == "llama-3-8b") return ModelShape{std::string(name), 128256, 4096, 32, 32, 8, 14336, 8192, 500000.0f};
    return std::nullopt;
}

std::vector<std::string> preset_shape_names() { return {"tinyllama-1.1b", "llama-2-7b", "llama-3-8b"}; }

uint64_t write_synthetic_model(const SyntheticModel& model, const std::string& path,
                               const std::function<void(uint64_t, uint64_t)>& progress) {
    const ModelShape& s = model.shape;
    s.check();
    using gguf::Value;
    gguf::Writer w;
    w.add_kv("general.architecture", Value{std::string("llama")});
    w.add_kv("general.name", Value{s.name + " (synthetic, " + model.plan.name() + ")"});
    w.add_kv("llama.context_length", Value{uint32_t(s.n_ctx)});
    w.add_kv("llama.embedding_length", Value{uint32_t(s.n_embd)});
    w.add_kv("llama.block_count", Value{uint32_t(s.n_layer)});
    w.add_kv("llama.feed_forward_length", Value{uint32_t(s.n_ff)});
    w.add_kv("llama.rope.dimension_count", Value{uint32_t(s.head_dim())});
    w.add_kv("llama.attention.head_count", Value{uint32_t(s.n_head)});
    w.add_kv("llama.attention.head_count_kv", Value{uint32_t(s.n_head_kv)});
    w.add_kv("llama.attention.layer_norm_rms_epsilon", Value{s.rms_eps});
    w.add_kv("llama.rope.freq_base", Value{s.rope_base});
    w.add_kv("llama.vocab_size", Value{uint32_t(s.n_vocab)});
    w.add_kv("general.quantization_version", Value{uint32_t{2}});
    if (const auto ftype = model.plan.llama_file_type()) w.add_kv("general.file_type", Value{*ftype});
    add_vocabulary(w, s.n_vocab);

    uint64_t tensor_index = 0, bytes = 0;
    // A matrix of `rows` rows of `row_elems` random values, in the plan's type for it.
    auto matrix = [&](const std::string& name, int64_t row_elems, int64_t rows) {
        const GgmlType type = choose_tensor_type(name, uint64_t(row_elems), 2, GgmlType::F32, model.plan, s.n_layer);
        const QuantTypeEntry& entry = require_quant_type(type, name);
        const size_t row_bytes = entry.row_bytes(row_elems);
        bytes += row_bytes * size_t(rows);
        w.add_tensor(name, type, {uint64_t(row_elems), uint64_t(rows)},
                     [=, seed = model.seed, index = tensor_index++](std::span<uint8_t> dst) {
#pragma omp parallel
                         {
                             std::vector<float> values(static_cast<size_t>(row_elems));
#pragma omp for schedule(dynamic, 16)
                             for (int64_t r = 0; r < rows; ++r) {
                                 random_row(seed, index, r, values);
                                 entry.quantize_row(values.data(), dst.data() + size_t(r) * row_bytes, row_elems);
                             }
                         }
                     });
    };
    auto norm = [&](const std::string& name) {
        bytes += 4 * size_t(s.n_embd);
        w.add_tensor(name, GgmlType::F32, {uint64_t(s.n_embd)}, [](std::span<uint8_t> dst) {
            const float one = 1.0f;
            for (size_t i = 0; i < dst.size(); i += 4) std::memcpy(dst.data() + i, &one, 4);
        });
    };

    const int64_t kv = s.n_head_kv * s.head_dim();
    matrix("token_embd.weight", s.n_embd, s.n_vocab);
    for (int64_t l = 0; l < s.n_layer; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        norm(p + "attn_norm.weight");
        matrix(p + "attn_q.weight", s.n_embd, s.n_embd);
        matrix(p + "attn_k.weight", s.n_embd, kv);
        matrix(p + "attn_v.weight", s.n_embd, kv);
        matrix(p + "attn_output.weight", s.n_embd, s.n_embd);
        norm(p + "ffn_norm.weight");
        matrix(p + "ffn_gate.weight", s.n_embd, s.n_ff);
        matrix(p + "ffn_up.weight", s.n_embd, s.n_ff);
        matrix(p + "ffn_down.weight", s.n_ff, s.n_embd);
    }
    norm("output_norm.weight");
    matrix("output.weight", s.n_embd, s.n_vocab);
    w.write(path, progress);
    return bytes;
}

}  // namespace tessera::model
