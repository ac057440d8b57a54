// The dispatching entry point of silu and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <cmath>

#include "kernels/cpu/silu.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Silu::operator()(simd::Scalar, const float* x, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void silu(const float* x, float* y, int64_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Silu{});
    kernel(x, y, n);
}

}  // namespace tessera::cpu
