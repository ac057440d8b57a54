// Run-time view of the quant types compiled into this build. Entries are
// generated from the type definitions selected by TESSERA_QUANT_TYPES; code
// that works on a tensor of any type looks its type up here instead of
// switching over type ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/quant/ggml_type.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct QuantTypeEntry {
    GgmlTypeTraits traits;
    GgmlType dot_type;
    bool quantizer_matches_ggml;              // see quant_type.hpp
    std::optional<uint32_t> llama_file_type;  // see quant_type.hpp
    // Rows of n values, unchecked: n must be a multiple of traits.block_elems
    // (check it once per tensor with row_bytes).
    void (*dequantize_row)(const void* src, float* dst, int64_t n);
    void (*quantize_row)(const float* src, void* dst, int64_t n);
    // Reference dot product of a row of this type with a row of dot_type.
    float (*dot_row)(const void* w, const void* a, int64_t n);
    GpuGroupLayout gpu_groups;  // the Vulkan backend's block layout (quant_type.hpp)

    // Bytes of a row of n values; throws an Error naming the type and n when
    // n is negative or not a multiple of traits.block_elems.
    size_t row_bytes(int64_t n) const;
    // The row kernels above, with that check first.
    void dequantize(const void* src, float* dst, int64_t n) const;
    void quantize(const float* src, void* dst, int64_t n) const;
    float dot(const void* w, const void* a, int64_t n) const;
};

// The types this build has kernels for, in the order of TESSERA_QUANT_TYPES.
std::span<const QuantTypeEntry> enabled_quant_types();

// nullptr when the build left the type out.
const QuantTypeEntry* find_quant_type(GgmlType id);

// The entry, or an Error that says whether the type is unknown to tessera or
// left out of this build (naming TESSERA_QUANT_TYPES). `what` names the user
// of the type in the message, e.g. a tensor name.
const QuantTypeEntry& require_quant_type(GgmlType id, std::string_view what);
const QuantTypeEntry& require_quant_type(std::string_view name, std::string_view what);

// The value of TESSERA_QUANT_TYPES this build was configured with.
std::string_view configured_quant_types();

}  // namespace tessera
