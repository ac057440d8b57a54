// The AVX-512 ActivationOps (see activation_ops.hpp). Bytes go to memory 32 or
// 64 at a time and are read back in the same units: a load that spans several
// smaller stores, or reads a masked store, waits for them to reach the cache.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "kernels/cpu/matmul/activation_ops.hpp"

#if defined(__AVX512BW__)
#include <immintrin.h>

namespace tessera::cpu::matmul_detail {
namespace {

// avx512bw and the archs over it (simd::Avx512Vnni).
template <class Arch>
    requires std::is_base_of_v<xsimd::avx512bw, Arch>
struct ActivationOps<Arch> {
    static float max_abs(const float* x, int64_t n) {
        // As integers: non-negative floats order as their bits; NaNs (above +inf) count as 0.
        const __m512i magnitude = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
        __m512i m = _mm512_setzero_si512();
        for (int64_t i = 0; i < n; i += 16) {
            const __m512i b = _mm512_and_si512(_mm512_loadu_si512(x + i), magnitude);
            m = _mm512_mask_max_epi32(m, _mm512_cmple_epi32_mask(b, inf), m, b);
        }
        return std::bit_cast<float>(_mm512_reduce_max_epi32(m));
    }
    static int64_t first_of_magnitude(const float* x, int64_t n, float m) {
        const __m512 magnitude = _mm512_set1_ps(m);
        for (int64_t i = 0;; i += 16) {
            const __mmask16 hit = _mm512_cmpeq_ps_mask(_mm512_abs_ps(_mm512_loadu_ps(x + i)), magnitude);
            if (hit != 0 || i + 16 >= n) return i + std::countr_zero(unsigned(hit));
        }
    }
    // cvtps2dq rounds by MXCSR: half to even by default, as nearbyint.
    static __m512i round16(const float* x, __m512 scale) {
        return _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x), scale));
    }
    // 32 int32 lanes (a, b) -> 32 bytes, with signed saturation (so at most 127).
    static __m256i pack32(__m512i a, __m512i b) {
        const __m512i words = _mm512_packs_epi32(a, b);  // per 128-bit lane: a0..3 b0..3 (as words)
        const __m256i lo = _mm512_castsi512_si256(words), hi = _mm512_extracti64x4_epi64(words, 1);
        // as dwords of 4 bytes: a0..3 b0..3 a8..11 b8..11 a4..7 b4..7 a12..15 b12..15
        const __m256i bytes = _mm256_packs_epi16(lo, hi);
        return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7));
    }
    template <class F>
    static void per32(int64_t n, F&& f) {
        for (int64_t i = 0; i < n; i += 32) f(i);
    }
    static void round_bytes(const float* x, int64_t n, float s, int8_t* q) {
        const __m512 scale = _mm512_set1_ps(s);
        per32(n, [&](int64_t i) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), pack32(round16(x + i, scale), round16(x + i + 16, scale)));
        });
    }
    static void round_halves(const float* x, int64_t n, float s, int8_t* hi, int8_t* lo) {
        const __m512 scale = _mm512_set1_ps(s);
        const __m512i half = _mm512_set1_epi32(128);
        per32(n, [&](int64_t i) {
            const __m512i a = round16(x + i, scale), b = round16(x + i + 16, scale);
            const __m512i ha = _mm512_srai_epi32(_mm512_add_epi32(a, half), 8);
            const __m512i hb = _mm512_srai_epi32(_mm512_add_epi32(b, half), 8);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(hi + i), pack32(ha, hb));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(lo + i),
                                pack32(_mm512_sub_epi32(a, _mm512_slli_epi32(ha, 8)),
                                       _mm512_sub_epi32(b, _mm512_slli_epi32(hb, 8))));
        });
    }
    // Lane l of 32 bytes: the sum of bytes 4l .. 4l + 3. Without VNNI (the
    // portable build's avx512bw arch, for Skylake-X): pairs, then pairs of pairs.
    static __m256i sum4_32(const int8_t* a) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
#if defined(__AVX512VNNI__)
        return _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(1), bytes);
#else
        return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(1), bytes), _mm256_set1_epi16(1));
#endif
    }
    template <bool kAdd>
    static void sums4(const int8_t* a, int64_t n, int32_t c, int32_t* out) {
        per32(n, [&](int64_t i) {
            auto* o = reinterpret_cast<__m256i*>(out + i / 4);
            __m256i v = _mm256_mullo_epi32(sum4_32(a + i), _mm256_set1_epi32(c));
            if constexpr (kAdd) v = _mm256_add_epi32(v, _mm256_loadu_si256(o));
            _mm256_storeu_si256(o, v);
        });
    }
    template <int G, bool kAdd>
    static void group_sums(const int8_t* a, int64_t n, int32_t c, int32_t* out) {
        static_assert(G == 16 || G == 32);
        const auto total = [](__m128i v) {
            v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4E));
            return _mm_cvtsi128_si32(_mm_add_epi32(v, _mm_shuffle_epi32(v, 0xB1)));
        };
        per32(n, [&](int64_t i) {
            const __m256i s = sum4_32(a + i);
            const int32_t low = total(_mm256_castsi256_si128(s)), high = total(_mm256_extracti128_si256(s, 1));
            if constexpr (G == 16) {
                out[i / 16] = (kAdd ? out[i / 16] : 0) + c * low;
                out[i / 16 + 1] = (kAdd ? out[i / 16 + 1] : 0) + c * high;
            } else {
                out[i / 32] = (kAdd ? out[i / 32] : 0) + c * (low + high);
            }
        });
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail

#endif  // __AVX512BW__
