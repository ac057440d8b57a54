// The dispatching entry point of dot_f32 and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include "kernels/cpu/dot_f32.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

float DotF32::operator()(simd::Scalar, const float* a, const float* b, size_t n) const {
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

float dot_f32(const float* a, const float* b, size_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(DotF32{});
    return kernel(a, b, n);
}

}  // namespace tessera::cpu
