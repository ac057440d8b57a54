#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/silu.hpp"
#include "kernels/cpu/swiglu.hpp"

namespace tessera::cpu {

template <class Arch>
void Swiglu::operator()(Arch, const float* gate, const float* up, float* y, int64_t n) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    int64_t i = 0;
    for (; i + width <= n; i += width)
        (silu_batch(Batch::load_unaligned(gate + i)) * Batch::load_unaligned(up + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = silu_value<Arch>(gate[i]) * up[i];
}

template void Swiglu::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*,
                                                    int64_t) const;

}  // namespace tessera::cpu
