// The CPU matmul's plain C++ fallback (the simd::Scalar arch of the
// dispatched kernel, not a reference): the last arch of a portable build's
// dispatch, and run by the tests (matmul_kernel_test.cpp), since the AVX2 and
// SSE4.2 archs share its plain C++ ChunkOps. Compiled at -O1
// (kernels/CMakeLists.txt): instantiated for every type, at -O3 it was the
// slowest file of the build (docs/measured-choices.md#compiling-the-scalar-matmul).
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/driver.hpp"

namespace tessera::cpu {

void MatmulKernel::operator()(simd::Scalar, const MatmulArgs& a, void* work, const ThreadTeam& team) const {
    matmul_detail::run_for_type<simd::Scalar>(a, work, team);
}

}  // namespace tessera::cpu
