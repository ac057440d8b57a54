// mul: y = a * b on rows (norm weights). y may be a or b.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Mul {
    // Defined in mul.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* a, const float* b, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const;
};

// Dispatches to the best arch of this CPU (mul_entry.cpp).
void mul(const float* a, const float* b, float* y, int64_t n);

}  // namespace tessera::cpu
