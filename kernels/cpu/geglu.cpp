#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/geglu.hpp"

namespace tessera::cpu {

template <class Arch>
void Geglu::operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    const Batch half(0.5f), one(1.0f), k(kGeluSqrt2OverPi), c(kGeluCubic);
    int64_t i = 0;
    for (; i + width <= n; i += width) {
        const Batch x = Batch::load_unaligned(gate + i);
        const Batch inner = k * x * xsimd::fma(c * x, x, one);
        (half * x * (one + xsimd::tanh(inner)) * Batch::load_unaligned(up + i)).store_unaligned(y + i);
    }
    for (; i < n; ++i) y[i] = gelu_tanh(gate[i]) * up[i];
}

template void Geglu::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*,
                                                   int64_t) const;

}  // namespace tessera::cpu
