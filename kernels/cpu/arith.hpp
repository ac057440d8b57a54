// Elementwise arithmetic on rows: residual adds, weight products, scaling.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// y = a + b. y may be a or b.
struct Add {
    // Defined in arith.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* a, const float* b, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const;
};

// y = a * b. y may be a or b.
struct Mul {
    template <class Arch>
    void operator()(Arch, const float* a, const float* b, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const;
};

// y = x * s. y may be x.
struct Scale {
    template <class Arch>
    void operator()(Arch, const float* x, float s, float* y, int64_t n) const;
    void operator()(simd::Scalar, const float* x, float s, float* y, int64_t n) const;
};

// Dispatch to the best arch of this CPU (eltwise_entry_points.cpp).
void add(const float* a, const float* b, float* y, int64_t n);
void mul(const float* a, const float* b, float* y, int64_t n);
void scale(const float* x, float s, float* y, int64_t n);

}  // namespace tessera::cpu
