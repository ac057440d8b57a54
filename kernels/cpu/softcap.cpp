#include <cmath>

#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/softcap.hpp"

namespace tessera::cpu {

template <class Arch>
void Softcap::operator()(Arch, const float* x, float* y, int64_t n, float cap) const {
    using Batch = xsimd::batch<float, Arch>;
    constexpr int64_t width = Batch::size;
    const Batch c(cap), inv(1.0f / cap);
    int64_t i = 0;
    for (; i + width <= n; i += width) (c * xsimd::tanh(Batch::load_unaligned(x + i) * inv)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = cap * std::tanh(x[i] * (1.0f / cap));
}

template void Softcap::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, float*, int64_t, float) const;

}  // namespace tessera::cpu
