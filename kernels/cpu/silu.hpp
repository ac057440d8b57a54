// SiLU activation and the SwiGLU gate of Llama's feed-forward block.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// y = x * sigmoid(x) = x / (1 + exp(-x)). y may be x.
struct Silu {
    // Defined in silu.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* x, float* y, int64_t n) const;
};

// y = silu(gate) * up. y may be gate or up.
struct Swiglu {
    template <class Arch>
    void operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const;
};

// Dispatch to the best arch of this CPU (eltwise_entry_points.cpp).
void silu(const float* x, float* y, int64_t n);
void swiglu(const float* gate, const float* up, float* y, int64_t n);

}  // namespace tessera::cpu
