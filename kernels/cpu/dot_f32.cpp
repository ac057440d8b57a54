#include "kernels/cpu/dot_f32.hpp"

namespace tessera::cpu {

template <class Arch>
float DotF32::operator()(Arch, const float* a, const float* b, size_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr size_t width = Batch::size;
    // Four independent accumulators hide the FMA latency.
    Batch acc0(0.0f), acc1(0.0f), acc2(0.0f), acc3(0.0f);
    size_t i = 0;
    for (; i + 4 * width <= n; i += 4 * width) {
        acc0 = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc0);
        acc1 = xsimd::fma(Batch::load_unaligned(a + i + width), Batch::load_unaligned(b + i + width), acc1);
        acc2 = xsimd::fma(Batch::load_unaligned(a + i + 2 * width), Batch::load_unaligned(b + i + 2 * width), acc2);
        acc3 = xsimd::fma(Batch::load_unaligned(a + i + 3 * width), Batch::load_unaligned(b + i + 3 * width), acc3);
    }
    for (; i + width <= n; i += width)
        acc0 = xsimd::fma(Batch::load_unaligned(a + i), Batch::load_unaligned(b + i), acc0);
    float sum = xsimd::hadd((acc0 + acc1) + (acc2 + acc3));
    for (; i < n; ++i) sum += a[i] * b[i];
    return sum;
}

template float DotF32::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, size_t) const;

}  // namespace tessera::cpu
