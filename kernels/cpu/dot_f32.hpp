// Dot product of two float rows: the F32 x F32 inner loop of matmul.
#pragma once

#include <cstddef>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct DotF32 {
    // Defined in dot_f32.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    float operator()(Arch, const float* a, const float* b, size_t n) const;
    float operator()(simd::Scalar, const float* a, const float* b, size_t n) const;
};

// Dispatches to the best arch of this CPU (dot_f32_entry.cpp).
float dot_f32(const float* a, const float* b, size_t n);

}  // namespace tessera::cpu
