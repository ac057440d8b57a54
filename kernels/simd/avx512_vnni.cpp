#include "kernels/simd/avx512_vnni.hpp"

#include <cpuid.h>

namespace tessera::simd {

bool Avx512Vnni::available() noexcept {
    static const bool detected = [] {
        if (xsimd::avx512bw::version() > xsimd::available_architectures().best) return false;
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
        return (ecx >> 11 & 1) != 0;  // CPUID.(EAX=7, ECX=0):ECX[11], AVX512_VNNI
    }();
    return detected;
}

}  // namespace tessera::simd
