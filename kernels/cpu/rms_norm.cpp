#include "kernels/cpu/rms_norm.hpp"

#include <cmath>

namespace tessera::cpu {

template <class Arch>
void RmsNorm::operator()(Arch, const float* x, const float* w, float* y, int64_t n, float eps) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    if (n <= 0) return;
    // Sum of squares: float lanes sum blocks of 16 vectors (4 terms per lane and
    // accumulator), each block total goes into a double. The relative error is
    // then a few float ulps whatever n is, as with a double accumulator.
    constexpr int64_t block = 16 * width;
    double sum = 0.0;
    int64_t i = 0;
    for (; i + block <= n; i += block) {
        Batch acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
        for (int64_t j = i; j < i + block; j += 4 * width) {
            const Batch a = Batch::load_unaligned(x + j), b = Batch::load_unaligned(x + j + width);
            const Batch c = Batch::load_unaligned(x + j + 2 * width), d = Batch::load_unaligned(x + j + 3 * width);
            acc0 = xsimd::fma(a, a, acc0);
            acc1 = xsimd::fma(b, b, acc1);
            acc2 = xsimd::fma(c, c, acc2);
            acc3 = xsimd::fma(d, d, acc3);
        }
        sum += double(xsimd::hadd((acc0 + acc1) + (acc2 + acc3)));
    }
    Batch acc(0.0f);
    for (; i + width <= n; i += width) {
        const Batch a = Batch::load_unaligned(x + i);
        acc = xsimd::fma(a, a, acc);
    }
    sum += double(xsimd::hadd(acc));
    for (; i < n; ++i) sum += double(x[i]) * x[i];

    const float inv = float(1.0 / std::sqrt(sum / double(n) + double(eps)));
    const Batch inv_b(inv);
    i = 0;
    if (w) {
        for (; i + width <= n; i += width)
            (Batch::load_unaligned(x + i) * inv_b * Batch::load_unaligned(w + i)).store_unaligned(y + i);
        for (; i < n; ++i) y[i] = x[i] * inv * w[i];
    } else {
        for (; i + width <= n; i += width) (Batch::load_unaligned(x + i) * inv_b).store_unaligned(y + i);
        for (; i < n; ++i) y[i] = x[i] * inv;
    }
}

template void RmsNorm::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*, int64_t,
                                                     float) const;

}  // namespace tessera::cpu
