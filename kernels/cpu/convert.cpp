#include "kernels/cpu/avx512_intrinsics_warning.hpp"
#include "kernels/cpu/convert.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/quant/half.hpp"

// These kernels use the conversion instructions directly. Each compilation of
// this file is for one arch, with that arch's compiler flags, so the
// instruction-set macros say which instructions the instantiated Arch has.

namespace tessera::cpu {

template <class Arch>
void F32ToF16::operator()(Arch, const float* src, uint16_t* dst, int64_t n) const {
    int64_t i = 0;
    // Immediate 0 (_MM_FROUND_TO_NEAREST_INT): round to nearest even, whatever MXCSR says.
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                            _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
#if defined(__F16C__)
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
    for (; i < n; ++i) dst[i] = fp32_to_fp16(src[i]);
}

// vcvtph2ps quiets signaling nans, fp16_to_fp32 keeps their bits: chunks that
// hold an inf or nan (exponent all ones) are redone with fp16_to_fp32.
template <class Arch>
void F16ToF32::operator()(Arch, const uint16_t* src, float* dst, int64_t n) const {
    int64_t i = 0;
#if defined(__AVX512F__)
    const __m256i exp_mask16 = _mm256_set1_epi16(0x7c00);
    for (; i + 16 <= n; i += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(_mm256_and_si256(h, exp_mask16), exp_mask16)) != 0)
            for (int64_t k = i; k < i + 16; ++k) dst[k] = fp16_to_fp32(src[k]);
    }
#endif
#if defined(__F16C__)
    const __m128i exp_mask8 = _mm_set1_epi16(0x7c00);
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
        if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(h, exp_mask8), exp_mask8)) != 0)
            for (int64_t k = i; k < i + 8; ++k) dst[k] = fp16_to_fp32(src[k]);
    }
#endif
    for (; i < n; ++i) dst[i] = fp16_to_fp32(src[i]);
}

// Widen each 16-bit value to 32 bits and shift it into the high half.
template <class Arch>
void Bf16ToF32::operator()(Arch, const uint16_t* src, float* dst, int64_t n) const {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
        _mm512_storeu_si512(dst + i, _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
#endif
#if defined(__AVX2__)
    for (; i + 8 <= n; i += 8) {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
#endif
#if defined(__SSE4_1__)
    for (; i + 4 <= n; i += 4) {
        const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_slli_epi32(_mm_cvtepu16_epi32(h), 16));
    }
#endif
    for (; i < n; ++i) dst[i] = bf16_to_fp32(src[i]);
}

template void F32ToF16::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const float*, uint16_t*, int64_t) const;
template void F16ToF32::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const uint16_t*, float*, int64_t) const;
template void Bf16ToF32::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const uint16_t*, float*, int64_t) const;

}  // namespace tessera::cpu
