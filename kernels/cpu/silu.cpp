#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/silu.hpp"

namespace tessera::cpu {

template <class Arch>
void Silu::operator()(Arch, const float* x, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width) silu_batch(Batch::load_unaligned(x + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = silu_value<Arch>(x[i]);
}

template void Silu::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float*, int64_t) const;

}  // namespace tessera::cpu
