// scale: y = x * s on rows. y may be x.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Scale {
    // Defined in scale.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, float s, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* x, float s, float* y, int64_t n) const;
};

// Dispatches to the best arch of this CPU (scale_entry.cpp).
void scale(const float* x, float s, float* y, int64_t n);

}  // namespace tessera::cpu
