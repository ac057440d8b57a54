// The dispatching entry points of rms_norm and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <cmath>

#include "kernels/cpu/rms_norm.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void RmsNorm::operator()(simd::Scalar, const float* x, const float* w, float* y, int64_t n, float eps) const {
    if (n <= 0) return;
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += double(x[i]) * x[i];
    const float inv = float(1.0 / std::sqrt(sum / double(n) + double(eps)));
    for (int64_t i = 0; i < n; ++i) y[i] = w ? x[i] * inv * w[i] : x[i] * inv;
}

void rms_norm(const float* x, float* y, int64_t n, float eps) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(RmsNorm{});
    kernel(x, nullptr, y, n, eps);
}

void rms_norm_mul(const float* x, const float* w, float* y, int64_t n, float eps) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(RmsNorm{});
    kernel(x, w, y, n, eps);
}

}  // namespace tessera::cpu
