// geglu: y = gelu(gate) * up on rows, the gate of Gemma's feed-forward block,
// with GELU's tanh approximation
// gelu(x) = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))). y may be gate or up.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Geglu {
    // Defined in geglu.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const;
};

inline constexpr float kGeluSqrt2OverPi = 0.7978845608028654f;
inline constexpr float kGeluCubic = 0.044715f;

// The tanh-approximated GELU of one value (the scalar fallback and the tails).
inline float gelu_tanh(float x) { return 0.5f * x * (1.0f + std::tanh(kGeluSqrt2OverPi * x * (1.0f + kGeluCubic * x * x))); }

// Dispatches to the best arch of this CPU (geglu_entry.cpp).
void geglu(const float* gate, const float* up, float* y, int64_t n);

}  // namespace tessera::cpu
