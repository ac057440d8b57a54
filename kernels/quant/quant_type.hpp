// What a quant type definition provides. Every file in kernels/quant/types/
// defines one struct satisfying QuantType; everything per-type elsewhere
// (registry entries, CPU kernels, shader variants, tests) is generated from
// these definitions, so adding a type means adding its header (and, for the
// Vulkan kernels, its GLSL part beside it: docs/adding-a-quant-type.md).
//
// A definition has:
//   id, name            the ggml type id and its name (must match ggml_type.hpp)
//   block_elems         values per block
//   Block               the exact on-disk block layout (standard layout, packed)
//   DotType             the type activations are converted to for dot products
//                       with this weight type (its block_elems is the same)
//   dequantize(b, out)  block -> block_elems floats (bit-exact with ggml's to_float)
//   quantize(in, b)     block_elems floats -> block (ggml's reference quantizer,
//                       or a quantizer at least as accurate where noted)
//   dot(w, a, nblocks)  reference dot product of nblocks weight blocks with
//                       nblocks DotType blocks, in ggml's arithmetic
// and optionally:
//   quantizer_matches_ggml  `static constexpr bool`: true when quantize()
//                       reproduces ggml's reference quantizer byte for byte
//                       (tests then compare bytes with llama-quantize's output
//                       instead of the error); false when absent
//   quantize_activation(in, b)  on the activation types (Q8_0, Q8_1, Q8_K):
//                       llama.cpp's x86 quantizer of activation rows, which the
//                       CPU matmul applies before the dot (its rounding differs
//                       from quantize's for Q8_0 and Q8_1: half to even)
//   llama_file_type     `static constexpr uint32_t`: llama.cpp's general.file_type
//                       (LLAMA_FTYPE_MOSTLY_*) of a model mostly of this type,
//                       which `tessera quantize` writes; absent: the key is left
//                       out (llama.cpp then guesses)
//   GpuGroups           how the Vulkan backend lays blocks out (its GLSL part
//                       reads that layout): `group_blocks` blocks at a time, first
//                       bytes [plane_offset, plane_offset + plane_bytes) of each
//                       (the quants: 16-byte aligned, so that a matvec loads
//                       them whole), then the rest of each (the scales); absent:
//                       blocks as on disk (kernels/quant/gpu_layout.hpp)
//   CpuUnpack           on the integer weight types: how the CPU matmul unpacks
//                       a span of blocks into 8-bit values and scales (see
//                       kernels/cpu/matmul/unpack.hpp); without it (and with
//                       blocks of more than one value) a type has no CPU matmul
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kernels/quant/ggml_type.hpp"

namespace tessera {

template <class T>
concept QuantType = requires(const typename T::Block& b, typename T::Block& mb, const float* in,
                             float* out, const typename T::DotType::Block* a) {
    { T::id } -> std::convertible_to<GgmlType>;
    { T::name } -> std::convertible_to<std::string_view>;
    { T::block_elems } -> std::convertible_to<size_t>;
    { T::dequantize(b, out) } -> std::same_as<void>;
    { T::quantize(in, mb) } -> std::same_as<void>;
    { T::dot(&b, a, size_t{1}) } -> std::same_as<float>;
} && std::is_standard_layout_v<typename T::Block> && std::is_trivially_copyable_v<typename T::Block>
  && (T::block_elems == T::DotType::block_elems);

// T::quantizer_matches_ggml, or false for a definition without it.
template <class T>
constexpr bool quantizer_matches_ggml() {
    if constexpr (requires { T::quantizer_matches_ggml; })
        return T::quantizer_matches_ggml;
    else
        return false;
}

// T::llama_file_type, or nullopt for a definition without it.
template <class T>
constexpr std::optional<uint32_t> llama_file_type() {
    if constexpr (requires { T::llama_file_type; })
        return T::llama_file_type;
    else
        return std::nullopt;
}

// T::GpuGroups as {group_blocks, plane_offset, plane_bytes}, or {1, 0, 0}
// (blocks as on disk) for a definition without it.
struct GpuGroupLayout {
    uint32_t group_blocks = 1, plane_offset = 0, plane_bytes = 0;
};
template <class T>
constexpr GpuGroupLayout gpu_group_layout() {
    if constexpr (requires { T::GpuGroups::group_blocks; })
        return {T::GpuGroups::group_blocks, T::GpuGroups::plane_offset, T::GpuGroups::plane_bytes};
    else
        return {};
}

// A compile-time list of types; the build's enabled quant types are one of these.
template <class... Ts>
struct TypeList {
    static constexpr size_t size = sizeof...(Ts);
    template <class F>
    static constexpr void for_each(F&& f) {
        (f.template operator()<Ts>(), ...);
    }
};

// Checks a definition against the format's type table; every type header
// ends with `static_assert(matches_format<T>())`.
template <class T>
consteval bool matches_format() {
    return sizeof(typename T::Block) == ggml_type_traits(T::id).block_bytes &&
           T::block_elems == ggml_type_traits(T::id).block_elems && T::name == ggml_type_traits(T::id).name;
}

}  // namespace tessera
