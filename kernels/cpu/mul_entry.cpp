// The dispatching entry point of mul and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include "kernels/cpu/mul.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Mul::operator()(simd::Scalar, const float* a, const float* b, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

void mul(const float* a, const float* b, float* y, int64_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Mul{});
    kernel(a, b, y, n);
}

}  // namespace tessera::cpu
