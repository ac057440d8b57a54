// AVX-512 with VNNI (vpdpbusd, vpdpwssd) as an arch of the portable build.
// xsimd 8.1 has no such arch: this one derives from xsimd::avx512bw, so
// xsimd's avx512bw kernels and this project's AVX-512 specializations apply
// to it, and its kernels, compiled with -mavx512vnni
// (codegen/simd_kernels.cmake), are template instantiations of a type of
// their own, distinct from those compiled for avx512bw without VNNI.
#pragma once

#include <type_traits>
#include <xsimd/xsimd.hpp>

namespace tessera::simd {

struct Avx512Vnni : xsimd::avx512bw {
    // Above avx512bw, so that an xsimd::arch_list holding both stays sorted.
    static constexpr unsigned version() noexcept { return xsimd::generic::version(3, 4, 1); }
    static constexpr char const* name() noexcept { return "avx512vnni"; }
    // Unlike xsimd's archs (whose available() is a constant true), a check of
    // the running CPU: xsimd's avx512bw detection and CPUID leaf 7's
    // AVX512_VNNI bit.
    static bool available() noexcept;
};

// Whether the kernels compiled for Arch have VNNI code: the portable build's
// Avx512Vnni, or the native build's one arch where -march=native enables VNNI.
template <class Arch>
inline constexpr bool has_vnni =
#if !defined(TESSERA_PORTABLE) && defined(__AVX512VNNI__) && defined(__AVX512BW__)
    std::is_same_v<Arch, xsimd::default_arch> ||
#endif
    std::is_base_of_v<Avx512Vnni, Arch>;

}  // namespace tessera::simd

// xsimd::batch<T, Avx512Vnni>: avx512bw's registers, in translation units
// compiled for AVX-512 BW.
#if XSIMD_WITH_AVX512BW
namespace xsimd::types {

template <class T>
struct get_bool_simd_register<T, tessera::simd::Avx512Vnni> {
    using type = simd_avx512_bool_register<T>;
};

XSIMD_DECLARE_SIMD_REGISTER_ALIAS(tessera::simd::Avx512Vnni, avx512bw);

}  // namespace xsimd::types
#endif
