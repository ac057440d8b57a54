#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::cpu {

template <class Arch>
void Softmax::operator()(Arch, const float* x, float* y, int64_t n, float scale, int64_t n_valid,
                         const float* mask) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    constexpr float neg_inf = -std::numeric_limits<float>::infinity();

    // Pass 1: y = scale * x + mask and its maximum.
    const Batch scale_b(scale);
    Batch max_b(neg_inf);
    int64_t i = 0;
    for (; i + width <= n_valid; i += width) {
        Batch v = Batch::load_unaligned(x + i) * scale_b;
        if (mask) v += Batch::load_unaligned(mask + i);
        v.store_unaligned(y + i);
        max_b = xsimd::max(max_b, v);
    }
    alignas(64) float lanes[width];
    max_b.store_aligned(lanes);
    float max = *std::max_element(lanes, lanes + width);
    for (; i < n_valid; ++i) {
        y[i] = x[i] * scale + (mask ? mask[i] : 0.0f);
        max = std::max(max, y[i]);
    }
    if (max == neg_inf) n_valid = 0;  // nothing to weigh: the row is all zeros

    // Pass 2: y = exp(y - max) and its sum. The float lanes sum blocks of
    // 16 vectors, each block total goes into a double (as in rms_norm.cpp).
    constexpr int64_t block = 16 * width;
    const Batch max_v(max);
    double sum = 0.0;
    i = 0;
    while (i + width <= n_valid) {
        Batch acc(0.0f);
        const int64_t end = std::min(n_valid, i + block);
        for (; i + width <= end; i += width) {
            const Batch e = xsimd::exp(Batch::load_unaligned(y + i) - max_v);
            e.store_unaligned(y + i);
            acc += e;
        }
        sum += double(xsimd::hadd(acc));
    }
    for (; i < n_valid; ++i) {
        y[i] = std::exp(y[i] - max);
        sum += double(y[i]);
    }

    // Pass 3: normalize, zero the rest.
    const float inv = float(1.0 / sum);
    const Batch inv_b(inv);
    i = 0;
    for (; i + width <= n_valid; i += width) (Batch::load_unaligned(y + i) * inv_b).store_unaligned(y + i);
    for (; i < n_valid; ++i) y[i] *= inv;
    std::fill(y + n_valid, y + n, 0.0f);
}

template void Softmax::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float*, int64_t, float, int64_t,
                                                     const float*) const;

}  // namespace tessera::cpu
