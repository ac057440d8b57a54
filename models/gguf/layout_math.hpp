// Overflow-checked size arithmetic shared by the GGUF reader and writer.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>

#include "kernels/quant/ggml_type.hpp"

namespace tessera::gguf {

inline std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

inline bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// `alignment` must be a power of two.
inline std::optional<uint64_t> align_up(uint64_t x, uint64_t alignment) {
    const auto bumped = checked_add(x, alignment - 1);
    if (!bumped) return std::nullopt;
    return *bumped & ~(alignment - 1);
}

// Element count of a shape; nullopt when it does not fit in int64 (ggml's index type).
inline std::optional<uint64_t> element_count(std::span<const uint64_t> ne) {
    uint64_t n = 1;
    for (uint64_t d : ne) {
        const auto next = checked_mul(n, d);
        if (!next || *next > uint64_t(std::numeric_limits<int64_t>::max())) return std::nullopt;
        n = *next;
    }
    return n;
}

// Bytes of a tensor whose ne[0] is a multiple of the block size; nullopt on overflow.
inline std::optional<uint64_t> tensor_byte_size(const GgmlTypeTraits& type, std::span<const uint64_t> ne) {
    const auto elems = element_count(ne);
    if (!elems || ne.empty()) return std::nullopt;
    const uint64_t rows = *elems / ne[0];
    const auto row = checked_mul(ne[0] / type.block_elems, type.block_bytes);
    if (!row) return std::nullopt;
    return checked_mul(*row, rows);
}

}  // namespace tessera::gguf
