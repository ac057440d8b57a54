// The dispatching entry point of swiglu and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <cmath>

#include "kernels/cpu/swiglu.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Swiglu::operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

void swiglu(const float* gate, const float* up, float* y, int64_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Swiglu{});
    kernel(gate, up, y, n);
}

}  // namespace tessera::cpu
