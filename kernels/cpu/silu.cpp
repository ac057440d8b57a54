#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/silu.hpp"

#include <cmath>

namespace tessera::cpu {
namespace {

template <class Batch>
Batch silu_batch(Batch x) {
    // exp(-x) overflows to inf for x < -88.7: x / inf = -0, the right limit.
    return x / (Batch(1.0f) + xsimd::exp(-x));
}

float silu_value(float x) { return x / (1.0f + std::exp(-x)); }

}  // namespace

template <class Arch>
void Silu::operator()(Arch, const float* x, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width) silu_batch(Batch::load_unaligned(x + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = silu_value(x[i]);
}

template <class Arch>
void Swiglu::operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width)
        (silu_batch(Batch::load_unaligned(gate + i)) * Batch::load_unaligned(up + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = silu_value(gate[i]) * up[i];
}

template void Silu::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float*, int64_t) const;
template void Swiglu::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*,
                                                    int64_t) const;

}  // namespace tessera::cpu
