// The dispatching entry point of softcap and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <cmath>

#include "kernels/cpu/softcap.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Softcap::operator()(simd::Scalar, const float* x, float* y, int64_t n, float cap) const {
    for (int64_t i = 0; i < n; ++i) y[i] = cap * std::tanh(x[i] * (1.0f / cap));
}

void softcap(const float* x, float* y, int64_t n, float cap) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Softcap{});
    kernel(x, y, n, cap);
}

}  // namespace tessera::cpu
