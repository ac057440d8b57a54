// swiglu: y = silu(gate) * up on rows, the gate of Llama's feed-forward block.
// y may be gate or up.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Swiglu {
    // Defined in swiglu.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const;
};

// Dispatches to the best arch of this CPU (swiglu_entry.cpp).
void swiglu(const float* gate, const float* up, float* y, int64_t n);

}  // namespace tessera::cpu
