#include "kernels/cpu/add.hpp"

#include "kernels/cpu/elementwise.hpp"

namespace tessera::cpu {

template <class Arch>
void Add::operator()(Arch, const float* a, const float* b, float* y, int64_t n) const {
    apply_binary<Arch>(a, b, y, n, [](auto p, auto q) { return p + q; });
}

template void Add::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, const float*, float*, int64_t) const;

}  // namespace tessera::cpu
