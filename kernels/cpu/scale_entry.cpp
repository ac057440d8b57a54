// The dispatching entry point of scale and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include "kernels/cpu/scale.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Scale::operator()(simd::Scalar, const float* x, float s, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

void scale(const float* x, float s, float* y, int64_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Scale{});
    kernel(x, s, y, n);
}

}  // namespace tessera::cpu
