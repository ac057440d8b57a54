#include "kernels/cpu/avx512_intrinsics_warning.hpp"
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
