// add: y = a + b on rows (residual adds, biases). y may be a or b.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

struct Add {
    // Defined in add.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* a, const float* b, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const;
};

// Dispatches to the best arch of this CPU (add_entry.cpp).
void add(const float* a, const float* b, float* y, int64_t n);

}  // namespace tessera::cpu
