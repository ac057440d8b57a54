// The instruction sets this build's CPU kernels are compiled for, and the
// run-time choice between them.
//
// Native build (default): one arch, the best for the build machine
// (-march=native), no dispatch cost. Portable build (TESSERA_PORTABLE):
// every kernel source is compiled once per arch in CpuArchs with that
// arch's flags (codegen/simd_kernels.cmake), and xsimd::dispatch picks the
// best one the running CPU supports, down to plain scalar code.
#pragma once

#include <string_view>
#include <xsimd/xsimd.hpp>

namespace tessera::simd {

// Last resort for CPUs without SSE4.2: kernels provide a plain C++ overload.
struct Scalar {
    static constexpr bool supported() noexcept { return true; }
    static constexpr bool available() noexcept { return true; }
    static constexpr unsigned version() noexcept { return 0; }
    static constexpr char const* name() noexcept { return "scalar"; }
};

#ifdef TESSERA_PORTABLE
using CpuArchs = xsimd::arch_list<xsimd::avx512bw, xsimd::fma3<xsimd::avx2>, xsimd::sse4_2, Scalar>;
#else
using CpuArchs = xsimd::arch_list<xsimd::default_arch>;
#endif

// Name of the arch the kernels run with on this CPU ("avx512bw", "fma3<avx2>", ...).
std::string_view active_arch_name();

}  // namespace tessera::simd
