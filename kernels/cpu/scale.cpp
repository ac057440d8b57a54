#include "kernels/cpu/scale.hpp"

namespace tessera::cpu {

template <class Arch>
void Scale::operator()(Arch, const float* x, float s, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    const Batch s_b(s);
    int64_t i = 0;
    for (; i + width <= n; i += width) (Batch::load_unaligned(x + i) * s_b).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = x[i] * s;
}

template void Scale::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float, float*, int64_t) const;

}  // namespace tessera::cpu
