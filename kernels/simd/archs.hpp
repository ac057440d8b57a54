// The instruction sets this build's CPU kernels are compiled for, and the
// run-time choice between them.
//
// Native build (default): one arch, the best for the build machine
// (-march=native), no dispatch cost. Portable build (TESSERA_PORTABLE):
// every kernel source is compiled once per arch in CpuArchs with that
// arch's flags (codegen/simd_kernels.cmake), and simd::dispatch
// (dispatch.hpp) picks the first one the running CPU supports, down to plain
// scalar code.
#pragma once

#include <string_view>
#include <xsimd/xsimd.hpp>

#include "kernels/simd/avx512_vnni.hpp"

namespace tessera::simd {

// Last resort for CPUs without SSE4.2: kernels provide a plain C++ overload.
struct Scalar {
    static constexpr bool supported() noexcept { return true; }
    static constexpr bool available() noexcept { return true; }
    static constexpr unsigned version() noexcept { return 0; }
    static constexpr char const* name() noexcept { return "scalar"; }
};

#ifdef TESSERA_PORTABLE
using CpuArchs = xsimd::arch_list<Avx512Vnni, xsimd::avx512bw, xsimd::fma3<xsimd::avx2>, xsimd::sse4_2, Scalar>;
#else
using CpuArchs = xsimd::arch_list<xsimd::default_arch>;
#endif

// Name of the arch the kernels run with on this CPU ("avx512vnni", "avx512bw",
// "fma3<avx2>", ...; a native build's with "+vnni" where it has VNNI code).
std::string_view active_arch_name();

// Whether the kernels run with VNNI code on this CPU (has_vnni of the active arch).
bool active_arch_has_vnni();

}  // namespace tessera::simd
