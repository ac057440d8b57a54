// The dispatching entry point of softmax and its scalar fallback.
// Compiled without arch flags: in a portable build this code runs on any
// x86-64 CPU before an arch is picked.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kernels/cpu/softmax.hpp"
#include "kernels/simd/dispatch.hpp"
#include "support/error.hpp"

namespace tessera::cpu {

void Softmax::operator()(simd::Scalar, const float* x, float* y, int64_t n, float scale, int64_t n_valid,
                         const float* mask) const {
    float max = -std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n_valid; ++i) {
        y[i] = x[i] * scale + (mask ? mask[i] : 0.0f);
        max = std::max(max, y[i]);
    }
    if (max == -std::numeric_limits<float>::infinity()) n_valid = 0;  // nothing to weigh: all zeros
    double sum = 0.0;
    for (int64_t i = 0; i < n_valid; ++i) {
        y[i] = std::exp(y[i] - max);
        sum += double(y[i]);
    }
    const float inv = float(1.0 / sum);
    for (int64_t i = 0; i < n_valid; ++i) y[i] *= inv;
    for (int64_t i = n_valid; i < n; ++i) y[i] = 0.0f;
}

void softmax(const float* x, float* y, int64_t n, float scale, int64_t n_valid, const float* mask) {
    if (n_valid < 0 || n_valid > n)
        throw Error("softmax: n_valid " + std::to_string(n_valid) + " is outside the row of " + std::to_string(n));
    static auto kernel = simd::dispatch<simd::CpuArchs>(Softmax{});
    kernel(x, y, n, scale, n_valid, mask);
}

}  // namespace tessera::cpu
