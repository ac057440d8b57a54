// RMS normalization of one row (Llama's attention and FFN norms).
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// y = x / sqrt(mean(x^2) + eps), times w[i] when w is not null. y may be x.
struct RmsNorm {
    // Defined in rms_norm.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, const float* w, float* y, int64_t n, float eps) const;
    void operator()(simd::Scalar, const float* x, const float* w, float* y, int64_t n, float eps) const;
};

// Dispatch to the best arch of this CPU (rms_norm_entry.cpp).
void rms_norm(const float* x, float* y, int64_t n, float eps);
// rms_norm(x) * w, elementwise: the norm fused with its weight row.
void rms_norm_mul(const float* x, const float* w, float* y, int64_t n, float eps);

}  // namespace tessera::cpu
