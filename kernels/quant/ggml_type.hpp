// Every tensor type id the GGUF format knows, with its block geometry.
// This is format knowledge (what a file may contain), not kernel support:
// which types this build can compute with is in registry.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera {

enum class GgmlType : uint32_t {
    F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
    Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
    IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21,
    IQ2_S = 22, IQ4_XS = 23, I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28,
    IQ1_M = 29, BF16 = 30, TQ1_0 = 34, TQ2_0 = 35,
};

struct GgmlTypeTraits {
    GgmlType id;
    std::string_view name;
    uint32_t block_elems;  // values per block (1 for plain types)
    uint32_t block_bytes;  // bytes per block
};

namespace detail {
using enum GgmlType;
// Block geometry of every ggml type (from the GGUF/ggml format definition).
inline constexpr std::array<GgmlTypeTraits, 31> kGgmlTypes = {{
    {F32, "F32", 1, 4},          {F16, "F16", 1, 2},          {Q4_0, "Q4_0", 32, 18},
    {Q4_1, "Q4_1", 32, 20},      {Q5_0, "Q5_0", 32, 22},      {Q5_1, "Q5_1", 32, 24},
    {Q8_0, "Q8_0", 32, 34},      {Q8_1, "Q8_1", 32, 36},      {Q2_K, "Q2_K", 256, 84},
    {Q3_K, "Q3_K", 256, 110},    {Q4_K, "Q4_K", 256, 144},    {Q5_K, "Q5_K", 256, 176},
    {Q6_K, "Q6_K", 256, 210},    {Q8_K, "Q8_K", 256, 292},    {IQ2_XXS, "IQ2_XXS", 256, 66},
    {IQ2_XS, "IQ2_XS", 256, 74}, {IQ3_XXS, "IQ3_XXS", 256, 98}, {IQ1_S, "IQ1_S", 256, 50},
    {IQ4_NL, "IQ4_NL", 32, 18},  {IQ3_S, "IQ3_S", 256, 110},  {IQ2_S, "IQ2_S", 256, 82},
    {IQ4_XS, "IQ4_XS", 256, 136}, {I8, "I8", 1, 1},           {I16, "I16", 1, 2},
    {I32, "I32", 1, 4},          {I64, "I64", 1, 8},          {F64, "F64", 1, 8},
    {IQ1_M, "IQ1_M", 256, 56},   {BF16, "BF16", 1, 2},        {TQ1_0, "TQ1_0", 256, 54},
    {TQ2_0, "TQ2_0", 256, 66},
}};
}  // namespace detail

// nullopt for ids the format does not define (or that ggml retired, e.g. 4, 5, 31..33).
constexpr std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t id) {
    for (const auto& t : detail::kGgmlTypes)
        if (uint32_t(t.id) == id) return t;
    return std::nullopt;
}
constexpr GgmlTypeTraits ggml_type_traits(GgmlType id) { return *ggml_type_traits(uint32_t(id)); }

constexpr std::optional<GgmlTypeTraits> ggml_type_by_name(std::string_view name) {
    for (const auto& t : detail::kGgmlTypes)
        if (t.name == name) return t;
    return std::nullopt;
}

// Bytes of one row of `elems` values; the caller must have checked that
// elems is a multiple of the block size.
constexpr size_t row_bytes(const GgmlTypeTraits& t, uint64_t elems) {
    return size_t(elems / t.block_elems) * t.block_bytes;
}

}  // namespace tessera
