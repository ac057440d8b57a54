// The dispatching entry point of geglu and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include "kernels/cpu/geglu.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::cpu {

void Geglu::operator()(simd::Scalar, const float* gate, const float* up, float* y, int64_t n) const {
    for (int64_t i = 0; i < n; ++i) y[i] = gelu_tanh(gate[i]) * up[i];
}

void geglu(const float* gate, const float* up, float* y, int64_t n) {
    static auto kernel = simd::dispatch<simd::CpuArchs>(Geglu{});
    kernel(gate, up, y, n);
}

}  // namespace tessera::cpu
