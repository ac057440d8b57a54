// GCC 12's AVX-512 intrinsics pass self-initialized "undefined" vectors to their
// masked builtins, which -W(maybe-)uninitialized reports wherever they inline.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/driver.hpp"

namespace tessera::cpu {

template <class Arch>
void MatmulKernel::operator()(Arch, const MatmulArgs& a, void* work, const ThreadTeam& team) const {
    matmul_detail::run_for_type<Arch>(a, work, team);
}

template void MatmulKernel::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const MatmulArgs&, void*,
                                                          const ThreadTeam&) const;

}  // namespace tessera::cpu
