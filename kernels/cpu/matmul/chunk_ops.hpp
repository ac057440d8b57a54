// The arch-specific inner operations of the matmul driver, on chunks of 64
// integer values (16 lanes of 4) or 16 floats:
//   int_chunk    acc[l] += float(bias[l] + sum_{e<4} q[4l+e] * a[4l+e]) * wscale[l] * ascale[l]
//                (q unsigned 8-bit weights, a signed 8-bit activations)
//   float_chunk  acc[l] += w[l] * a[l]
//   sum          the sum of acc's 16 lanes
//   half         one fp16 value -> float
//   split_nibbles  n bytes -> their n low nibbles, then their n high nibbles (n = 16 or 32)
//   widen        F32/F16/BF16 weights -> floats
// The primary template is plain C++ (the compiler vectorizes what it can);
// AVX-512 has a specialization, with VNNI's dpbusd where the build enables it.
// Internal linkage: see unpack.hpp.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/quant/half.hpp"
#include "kernels/quant/types/bf16.hpp"
#include "kernels/quant/types/f16.hpp"
#include "kernels/quant/types/f32.hpp"
#include "kernels/simd/archs.hpp"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tessera::cpu::matmul_detail {
namespace {

template <class Arch>
struct ChunkOps {
    struct Acc {
        float v[16];
    };
    static Acc zero() { return {}; }

    static void int_chunk(Acc& acc, const int8_t* a, const int32_t* bias, const float* ascale, const uint8_t* q,
                          const float* wscale) {
        for (int l = 0; l < 16; ++l) {
            int32_t s = bias[l];
            for (int e = 4 * l; e < 4 * l + 4; ++e) s += int32_t(q[e]) * int32_t(a[e]);
            acc.v[l] += float(s) * (wscale[l] * ascale[l]);
        }
    }
    static void float_chunk(Acc& acc, const float* a, const float* w) {
        for (int l = 0; l < 16; ++l) acc.v[l] += w[l] * a[l];
    }
    static float sum(const Acc& acc) {
        float s = 0.0f;
        for (float v : acc.v) s += v;
        return s;
    }

    static float half(uint16_t h) { return fp16_to_fp32(h); }
    static void split_nibbles(const uint8_t* __restrict src, uint8_t* __restrict dst, int n) {
        for (int j = 0; j < n; ++j) {
            dst[j] = src[j] & 0xF;
            dst[j + n] = src[j] >> 4;
        }
    }
    static void widen(const F32::Block* src, float* dst, int64_t n) { std::memcpy(dst, src, size_t(4 * n)); }
    static void widen(const F16::Block* src, float* dst, int64_t n) {
        for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(src[i].bits);
    }
    static void widen(const BF16::Block* src, float* dst, int64_t n) {
        for (int64_t i = 0; i < n; ++i) dst[i] = bf16_to_fp32(src[i].bits);
    }
};

#if defined(__AVX512BW__)

#if defined(__AVX512VNNI__)
inline __m512i dot_u8s8(__m512i acc, __m512i u, __m512i s) { return _mm512_dpbusd_epi32(acc, u, s); }
#else
// Without VNNI: even and odd bytes widened to 16 bits, multiplied and added in pairs.
inline __m512i dot_u8s8(__m512i acc, __m512i u, __m512i s) {
    const __m512i u_even = _mm512_and_si512(u, _mm512_set1_epi16(0xFF)), u_odd = _mm512_srli_epi16(u, 8);
    const __m512i s_even = _mm512_srai_epi16(_mm512_slli_epi16(s, 8), 8), s_odd = _mm512_srai_epi16(s, 8);
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(u_even, s_even));
    return _mm512_add_epi32(acc, _mm512_madd_epi16(u_odd, s_odd));
}
#endif

template <>
struct ChunkOps<xsimd::avx512bw> {
    using Acc = __m512;
    static Acc zero() { return _mm512_setzero_ps(); }

    static void int_chunk(Acc& acc, const int8_t* a, const int32_t* bias, const float* ascale, const uint8_t* q,
                          const float* wscale) {
        const __m512i isum = dot_u8s8(_mm512_load_si512(bias), _mm512_load_si512(q), _mm512_load_si512(a));
        const __m512 scale = _mm512_mul_ps(_mm512_load_ps(wscale), _mm512_load_ps(ascale));
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), scale, acc);
    }
    static void float_chunk(Acc& acc, const float* a, const float* w) {
        acc = _mm512_fmadd_ps(_mm512_load_ps(w), _mm512_load_ps(a), acc);
    }
    static float sum(Acc acc) { return _mm512_reduce_add_ps(acc); }

    static float half(uint16_t h) { return _cvtsh_ss(h); }
    static void split_nibbles(const uint8_t* src, uint8_t* dst, int n) {
        const __m256i mask = _mm256_set1_epi8(0xF);
        if (n == 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
            const __m256i both = _mm256_inserti128_si256(_mm256_castsi128_si256(v), _mm_srli_epi16(v, 4), 1);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_and_si256(both, mask));
        } else {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_and_si256(v, mask));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32), _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));
        }
    }
    static void widen(const F32::Block* src, float* dst, int64_t n) { std::memcpy(dst, src, size_t(4 * n)); }
    static void widen(const F16::Block* src, float* dst, int64_t n) {
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm512_store_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
        for (; i < n; ++i) dst[i] = fp16_to_fp32(src[i].bits);
    }
    static void widen(const BF16::Block* src, float* dst, int64_t n) {
        int64_t i = 0;
        for (; i + 16 <= n; i += 16) {
            const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
            _mm512_store_si512(dst + i, _mm512_slli_epi32(wide, 16));
        }
        for (; i < n; ++i) dst[i] = bf16_to_fp32(src[i].bits);
    }
};

#endif  // __AVX512BW__

}  // namespace
}  // namespace tessera::cpu::matmul_detail
