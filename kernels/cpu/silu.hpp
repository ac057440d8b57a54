// silu: y = x * sigmoid(x) = x / (1 + exp(-x)) on rows. y may be x.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Silu {
    // Defined in silu.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* x, float* y, int64_t n) const;
};

// silu of one batch and of one value (the tail), shared with swiglu; both
// are templates of the arch so that each arch's copy stays its own.
// exp(-x) overflows to inf for x < -88.7: x / inf = -0, the right limit.
template <class Arch>
xsimd::batch<float, Arch> silu_batch(xsimd::batch<float, Arch> x) {
    return x / (xsimd::batch<float, Arch>(1.0f) + xsimd::exp(-x));
}
template <class Arch>
float silu_value(float x) {
    return x / (1.0f + std::exp(-x));
}

// Dispatches to the best arch of this CPU (silu_entry.cpp).
void silu(const float* x, float* y, int64_t n);

}  // namespace tessera::cpu
