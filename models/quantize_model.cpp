#include "models/quantize_model.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <optional>
#include <vector>

#include "kernels/quant/registry.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "support/error.hpp"
#include "support/output_file.hpp"

namespace tessera {
namespace {

double bits_per_weight(const GgmlTypeTraits& t) { return 8.0 * t.block_bytes / t.block_elems; }

bool is_norm_or_vector(const std::string& name, size_t n_dims) {
    return n_dims < 2 || name.ends_with("_norm.weight") || name.ends_with(".bias");
}

// llama.cpp's general.file_type ("ftype") for a model mostly of one type, from
// its definition. Types without one leave the key unset (llama.cpp then guesses).
std::optional<uint32_t> file_type_of(GgmlType t) {
    const QuantTypeEntry* type = find_quant_type(t);
    return type ? type->llama_file_type : std::nullopt;
}

// The mixes: name, base type, file type (llama.cpp's LLAMA_FTYPE_MOSTLY_*).
struct Mix {
    std::string_view name;
    GgmlType base;
    uint32_t file_type;
};
constexpr Mix kMixes[] = {{"Q4_K_M", GgmlType::Q4_K, 15}, {"Q5_K_M", GgmlType::Q5_K, 17}};

// The mix a plan is, or nullptr for a single type.
const Mix* mix_of(const QuantizePlan& plan) {
    for (const Mix& mix : kMixes)
        if (plan.more_bits && mix.base == plan.target) return &mix;
    return nullptr;
}

// llama.cpp's choice of the layers whose attn_v and ffn_down get more bits:
// the first and last eighth, and every third layer in between.
bool use_more_bits(int64_t layer, int64_t n_layer) {
    return layer < n_layer / 8 || layer >= 7 * n_layer / 8 || (layer - n_layer / 8) % 3 == 2;
}

// The type llama-quantize puts in place of a k-quant whose blocks of 256
// do not fit a tensor's rows.
std::optional<GgmlType> k_quant_fallback(GgmlType type) {
    switch (type) {
        case GgmlType::Q2_K:
        case GgmlType::Q3_K: return GgmlType::IQ4_NL;
        case GgmlType::Q4_K: return GgmlType::Q5_0;
        case GgmlType::Q5_K: return GgmlType::Q5_1;
        case GgmlType::Q6_K: return GgmlType::Q8_0;
        default: return std::nullopt;
    }
}

// The N of "blk.N.", or -1.
int64_t layer_of(const std::string& name) {
    if (!name.starts_with("blk.")) return -1;
    return std::strtoll(name.c_str() + 4, nullptr, 10);
}

// Converts one tensor row by row through F32.
void convert_rows(const gguf::TensorInfo& t, const QuantTypeEntry& from, const QuantTypeEntry& to,
                  std::span<uint8_t> dst) {
    const auto row_elems = int64_t(t.ne[0]);
    const size_t src_row = row_bytes(from.traits, uint64_t(row_elems));
    const size_t dst_row = row_bytes(to.traits, uint64_t(row_elems));
    const auto rows = int64_t(t.n_rows());
#pragma omp parallel
    {
        std::vector<float> buf(static_cast<size_t>(row_elems));
#pragma omp for schedule(dynamic, 16)
        for (int64_t r = 0; r < rows; ++r) {
            from.dequantize_row(t.data.data() + size_t(r) * src_row, buf.data(), row_elems);
            to.quantize_row(buf.data(), dst.data() + size_t(r) * dst_row, row_elems);
        }
    }
}

}  // namespace

std::string file_type_name(uint32_t file_type) {
    for (const Mix& mix : kMixes)
        if (mix.file_type == file_type) return std::string(mix.name);
    for (const auto& e : enabled_quant_types())
        if (file_type_of(e.traits.id) == file_type) return std::string(e.traits.name);
    return "ftype " + std::to_string(file_type);
}

QuantizePlan QuantizePlan::parse(const std::string& given) {
    // Type names are upper case; "q4_k_m" is accepted as llama-quantize accepts it.
    std::string name = given;
    std::ranges::transform(name, name.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    QuantizePlan plan;
    for (const Mix& mix : kMixes)
        if (name == mix.name) {
            plan.target = require_quant_type(mix.base, name).traits.id;
            plan.more_bits = require_quant_type(GgmlType::Q6_K, name).traits.id;
            return plan;
        }
    const QuantTypeEntry* type = nullptr;
    try {
        type = &require_quant_type(name, "quantize target");
    } catch (const Error& e) {
        throw Error(std::string(e.what()) + " (or one of the mixes Q4_K_M, Q5_K_M)");
    }
    if (type->traits.id == GgmlType::Q8_1 || type->traits.id == GgmlType::Q8_K)
        throw Error("quantize target " + name + " is an activation-only format, not a weight type");
    plan.target = type->traits.id;
    return plan;
}

std::string QuantizePlan::name() const {
    const Mix* mix = mix_of(*this);
    return std::string(mix ? mix->name : ggml_type_traits(target).name);
}

std::optional<uint32_t> QuantizePlan::llama_file_type() const {
    const Mix* mix = mix_of(*this);
    return mix ? std::optional<uint32_t>(mix->file_type) : file_type_of(target);
}

GgmlType choose_tensor_type(const std::string& name, uint64_t row_elems, size_t n_dims, GgmlType source,
                            const QuantizePlan& plan, int64_t n_layer, bool output_tied) {
    if (is_norm_or_vector(name, n_dims)) return source;
    GgmlTypeTraits want = ggml_type_traits(plan.target);
    const bool more_bits_role = name.ends_with(".attn_v.weight") || name.ends_with(".ffn_down.weight");
    if (plan.more_bits && more_bits_role && use_more_bits(layer_of(name), n_layer))
        want = ggml_type_traits(*plan.more_bits);
    const bool projects_logits = name == "output.weight" || (output_tied && name == "token_embd.weight");
    if (!plan.pure && projects_logits && find_quant_type(GgmlType::Q6_K)) {
        const auto q6k = ggml_type_traits(GgmlType::Q6_K);
        if (bits_per_weight(want) < bits_per_weight(q6k)) want = q6k;
    }
    return fitting_type(want.id, row_elems);
}

GgmlType fitting_type(GgmlType wanted, uint64_t row_elems) {
    const GgmlTypeTraits want = ggml_type_traits(wanted);
    if (row_elems % want.block_elems == 0) return want.id;
    // llama-quantize's replacement of a k-quant (blocks of 256) where it is enabled and fits.
    if (const std::optional<GgmlType> k = k_quant_fallback(want.id); k && find_quant_type(*k) &&
                                                                      row_elems % ggml_type_traits(*k).block_elems == 0)
        return *k;
    // Else the cheapest enabled type with a fitting block and at least the precision asked for.
    const QuantTypeEntry* best = nullptr;
    for (const auto& e : enabled_quant_types()) {
        if (row_elems % e.traits.block_elems != 0 || bits_per_weight(e.traits) < bits_per_weight(want)) continue;
        if (e.traits.id == GgmlType::Q8_1 || e.traits.id == GgmlType::Q8_K) continue;  // activation formats
        // Ties go to the lower type id: the older, more widely supported type (F16 before BF16).
        const double bits = bits_per_weight(e.traits), best_bits = best ? bits_per_weight(best->traits) : 0.0;
        if (!best || bits < best_bits || (bits == best_bits && e.traits.id < best->traits.id)) best = &e;
    }
    return best ? best->traits.id : GgmlType::F32;
}

bool is_fallback(const std::string& name, size_t n_dims, GgmlType chosen, const QuantizePlan& plan, bool output_tied) {
    const bool projects_logits = name == "output.weight" || (output_tied && name == "token_embd.weight");
    return !is_norm_or_vector(name, n_dims) && chosen != plan.target && chosen != plan.more_bits &&
           !(projects_logits && !plan.pure);
}

GgmlType choose_model_tensor_type(const std::string& name, uint64_t row_elems, size_t n_dims, GgmlType source,
                                  const QuantizePlan& plan, const QuantizeFacts& facts, bool& fallback) {
    fallback = false;
    if (facts.n_expert > 0 && name.ends_with(".ffn_gate_inp.weight")) return source;
    const bool quantized = ggml_type_traits(plan.target).block_elems > 1;
    if (facts.n_expert == 8 && quantized && !plan.pure) {
        std::optional<GgmlType> want;
        if (name.ends_with(".attn_k.weight") || name.ends_with(".attn_v.weight")) want = GgmlType::Q8_0;
        if (name.ends_with(".attn_output.weight") && plan.name() == "Q4_K_M") want = GgmlType::Q5_K;
        if (want && find_quant_type(*want)) {
            const GgmlType type = fitting_type(*want, row_elems);
            fallback = type != *want;
            return type;
        }
    }
    std::string as = name;
    if (const size_t at = as.find("_exps.weight"); at != std::string::npos) as.replace(at, 5, "");
    const size_t dims = std::min<size_t>(n_dims, 2);  // an expert tensor: its experts' matrices
    const GgmlType type = choose_tensor_type(as, row_elems, dims, source, plan, facts.n_layer, facts.output_tied);
    fallback = is_fallback(as, dims, type, plan, facts.output_tied);
    return type;
}

QuantizeReport quantize_model(const gguf::File& in, const std::string& out_path, const QuantizePlan& plan,
                              const std::function<void(const std::string&)>& log) {
    require_quant_type(plan.target, "quantize target");
    refuse_overwriting_input(in.name(), out_path);
    gguf::Writer writer;
    for (const auto& kv : in.metadata()) {
        if (kv.key == "general.file_type" || kv.key == "general.quantization_version") continue;
        writer.add_kv(kv.key, kv.value);
    }
    writer.add_kv("general.quantization_version", gguf::Value{uint32_t{2}});
    if (const auto ftype = plan.llama_file_type()) writer.add_kv("general.file_type", gguf::Value{*ftype});

    QuantizeFacts facts{.output_tied = in.find_tensor("output.weight") == nullptr};
    if (const gguf::Value* arch = in.find("general.architecture"); arch && arch->as_string()) {
        auto count = [&](const char* key) {
            const gguf::Value* v = in.find(*arch->as_string() + key);
            return v ? v->as_int().value_or(0) : 0;
        };
        facts.n_layer = count(".block_count");
        facts.n_expert = count(".expert_count");
    }
    QuantizeReport report;
    for (const auto& t : in.tensors()) {
        bool fallback = false;
        const GgmlType type = choose_model_tensor_type(t.name, t.ne[0], t.ne.size(), t.type.id, plan, facts, fallback);
        report.bytes_in += t.data.size();
        const auto& out_traits = ggml_type_traits(type);
        report.bytes_out += row_bytes(out_traits, t.ne[0]) * t.n_rows();
        char line[256];
        if (type == t.type.id) {
            writer.add_tensor(t.name, type, t.ne, t.data);
            ++report.tensors_copied;
            std::snprintf(line, sizeof line, "%-32s %-7s kept", t.name.c_str(), std::string(t.type.name).c_str());
        } else {
            const auto& from = require_quant_type(t.type.id, in.name() + ": tensor " + t.name);
            const auto& to = require_quant_type(type, "quantize target for " + t.name);
            writer.add_tensor(t.name, type, t.ne, [&t, &from, &to](std::span<uint8_t> dst) { convert_rows(t, from, to, dst); });
            ++report.tensors_quantized;
            if (fallback) ++report.tensors_fallback;
            std::snprintf(line, sizeof line, "%-32s %-7s -> %-7s%s", t.name.c_str(), std::string(t.type.name).c_str(),
                          std::string(out_traits.name).c_str(),
                          fallback ? "  (rows do not fit the target block: fallback)" : "");
        }
        if (log) log(line);
    }
    writer.write(out_path);
    return report;
}

}  // namespace tessera
