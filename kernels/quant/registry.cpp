#include "kernels/quant/registry.hpp"

#include <array>
#include <vector>

#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera {
namespace {

template <QuantType T>
void dequantize_row(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const typename T::Block*>(src);
    for (int64_t i = 0; i < n / int64_t(T::block_elems); ++i) T::dequantize(blocks[i], dst + i * T::block_elems);
}

template <QuantType T>
void quantize_row(const float* src, void* dst, int64_t n) {
    auto* blocks = static_cast<typename T::Block*>(dst);
    for (int64_t i = 0; i < n / int64_t(T::block_elems); ++i) T::quantize(src + i * T::block_elems, blocks[i]);
}

template <QuantType T>
float dot_row(const void* w, const void* a, int64_t n) {
    return T::dot(static_cast<const typename T::Block*>(w), static_cast<const typename T::DotType::Block*>(a),
                  size_t(n) / T::block_elems);
}

std::vector<QuantTypeEntry> make_entries() {
    std::vector<QuantTypeEntry> entries;
    EnabledQuantTypes::for_each([&]<class T>() {
        entries.push_back({ggml_type_traits(T::id), T::DotType::id, quantizer_matches_ggml<T>(), llama_file_type<T>(),
                           &dequantize_row<T>, &quantize_row<T>, &dot_row<T>, gpu_group_layout<T>()});
    });
    return entries;
}

const std::vector<QuantTypeEntry>& entries() {
    static const std::vector<QuantTypeEntry> all = make_entries();
    return all;
}

}  // namespace

size_t QuantTypeEntry::row_bytes(int64_t n) const {
    if (n < 0) throw Error(std::string(traits.name) + ": row length " + std::to_string(n) + " is negative");
    if (n % int64_t(traits.block_elems) != 0)
        throw Error(std::string(traits.name) + ": row length " + std::to_string(n) +
                    " is not a multiple of the block size " + std::to_string(traits.block_elems));
    return tessera::row_bytes(traits, uint64_t(n));
}

void QuantTypeEntry::dequantize(const void* src, float* dst, int64_t n) const {
    row_bytes(n);
    dequantize_row(src, dst, n);
}

void QuantTypeEntry::quantize(const float* src, void* dst, int64_t n) const {
    row_bytes(n);
    quantize_row(src, dst, n);
}

float QuantTypeEntry::dot(const void* w, const void* a, int64_t n) const {
    row_bytes(n);
    return dot_row(w, a, n);
}

std::span<const QuantTypeEntry> enabled_quant_types() { return entries(); }

const QuantTypeEntry* find_quant_type(GgmlType id) {
    for (const auto& e : entries())
        if (e.traits.id == id) return &e;
    return nullptr;
}

const QuantTypeEntry& require_quant_type(GgmlType id, std::string_view what) {
    if (const auto* e = find_quant_type(id)) return *e;
    const auto traits = ggml_type_traits(uint32_t(id));
    if (!traits)
        throw Error(std::string(what) + ": unknown ggml type id " + std::to_string(uint32_t(id)));
    const std::string type_name(traits->name);
    if ((";" + std::string(kDefinedQuantTypes) + ";").find(";" + type_name + ";") == std::string::npos)
        throw Error(std::string(what) + ": type " + type_name + " (id " + std::to_string(uint32_t(id)) +
                    ") is not supported by tessera");
    throw Error(std::string(what) + ": type " + type_name +
                " is not available in this build (TESSERA_QUANT_TYPES=" + std::string(configured_quant_types()) +
                "; reconfigure with the type added to that CMake option)");
}

const QuantTypeEntry& require_quant_type(std::string_view name, std::string_view what) {
    const auto traits = ggml_type_by_name(name);
    if (!traits) throw Error(std::string(what) + ": unknown quant type '" + std::string(name) + "'");
    return require_quant_type(traits->id, what);
}

std::string_view configured_quant_types() { return kConfiguredQuantTypes; }

}  // namespace tessera
