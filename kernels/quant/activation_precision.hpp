// How a matmul rounds its F32 activations before the products with the
// weights (docs/cpu-matmul.md, "Activation numerics").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tessera {

enum class ActivationPrecision : uint8_t {
    // llama.cpp's arithmetic: x in 8-bit blocks of the weight type's dot type
    // (Q8_0, Q8_1, Q8_K); F16/BF16 weights see x rounded to their type.
    Q8,
    // Up to 15 tokens: 16-bit blocks of 32 values (each split into two 8-bit
    // halves, so twice the integer dots), about 2^-15 of a block's largest
    // value instead of 2^-8. 16 tokens or more, and float weights: x
    // unrounded (an F32 GEMM on dequantized weights; cpu::kQ16GemmMinTokens).
    Q16,
};

constexpr std::string_view name(ActivationPrecision p) { return p == ActivationPrecision::Q8 ? "q8" : "q16"; }

constexpr std::optional<ActivationPrecision> parse_activation_precision(std::string_view s) {
    if (s == "q8") return ActivationPrecision::Q8;
    if (s == "q16") return ActivationPrecision::Q16;
    return std::nullopt;
}

}  // namespace tessera
