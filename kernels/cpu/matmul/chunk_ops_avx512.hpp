// The AVX-512 ChunkOps (see chunk_ops.hpp): one zmm per Bytes / Ints / Acc,
// VNNI's dpbusd where the translation unit's flags enable it (simd::Avx512Vnni,
// or a native build on a VNNI CPU).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/cpu/matmul/chunk_ops.hpp"

#if defined(__AVX512BW__)
#include <immintrin.h>

namespace tessera::cpu::matmul_detail {
namespace {

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

// 32 bytes at lo, then 32 at hi. Weight spans of 18- and 144-byte blocks are
// not 64-byte aligned, and 64-byte loads of their quants across cache lines
// slow the matvecs down (docs/measured-choices.md#32-byte-loads-of-quants).
inline __m512i load_pair(const void* lo, const void* hi) {
    const __m256i l = _mm256_loadu_si256(static_cast<const __m256i*>(lo));
    return _mm512_inserti64x4(_mm512_zextsi256_si512(l), _mm256_loadu_si256(static_cast<const __m256i*>(hi)), 1);
}

// Word i: word index[i] of the 64 bytes at a (index[i] < 32), else word
// index[i] - 32 of those at b; one vpermt2w (read 32 bytes at a time).
inline __m512i window_words(const uint8_t* a, const uint8_t* b, const int16_t* index) {
    return _mm512_permutex2var_epi16(load_pair(a, a + 32), _mm512_loadu_si512(index), load_pair(b, b + 32));
}

// halves(): the 16-bit words at Stride * i (i < 8) come from two 128-byte
// windows, at 0 and at kSecond; each gathered by one vpermt2w.
template <int Stride, int Readable>
struct HalvesWindows {
    static constexpr int kFirstOut = (128 - 2) / Stride + 1;  // the first word not in the first window
    static constexpr int kSecond = kFirstOut >= 8 ? 0 : std::min(Stride * kFirstOut, Readable - 128);
    static_assert(Readable >= 128 && Stride % 2 == 0 && kSecond % 2 == 0 && Stride * 7 + 2 - kSecond <= 128);
    static constexpr std::array<int16_t, 32> index(bool second) {
        std::array<int16_t, 32> idx{};
        for (int j = 0; j < 8; ++j) idx[size_t(j)] = int16_t((Stride * j - (second ? kSecond : 0)) / 2);
        return idx;
    }
    static constexpr __mmask32 kFromSecond = __mmask32(0xFF & ~((1u << std::min(kFirstOut, 8)) - 1));

    static __m512i words(const uint8_t* p) {
        static constexpr std::array<int16_t, 32> kFirst = index(false), kSecondIndex = index(true);
        if constexpr (kFromSecond == 0) {  // one window
            return window_words(p, p + 64, kFirst.data());
        } else {
            const __m512i w = _mm512_permutex2var_epi16(_mm512_loadu_si512(p), _mm512_loadu_si512(kFirst.data()),
                                                        _mm512_loadu_si512(p + 64));
            const uint8_t* q = p + kSecond;
            const __m512i more = _mm512_permutex2var_epi16(_mm512_loadu_si512(q), _mm512_loadu_si512(kSecondIndex.data()),
                                                           _mm512_loadu_si512(q + 64));
            return _mm512_mask_mov_epi16(w, kFromSecond, more);
        }
    }
};

// avx512bw and the archs over it (simd::Avx512Vnni), whose translation units'
// flags pick dot_u8s8's form.
template <class Arch>
    requires std::is_base_of_v<xsimd::avx512bw, Arch>
struct ChunkOps<Arch> {
    using Bytes = __m512i;
    using Ints = __m512i;
    using Acc = __m512;

    static Acc zero() { return _mm512_setzero_ps(); }
    static Acc set1(float v) { return _mm512_set1_ps(v); }
    static Acc load(const float* p) { return _mm512_loadu_ps(p); }
    static void store(Acc a, float* p) { _mm512_storeu_ps(p, a); }
    static Acc mul(Acc a, Acc b) { return _mm512_mul_ps(a, b); }
    static Acc fma(Acc a, Acc b, Acc acc) { return _mm512_fmadd_ps(a, b, acc); }
    static float sum(Acc acc) { return _mm512_reduce_add_ps(acc); }

    static Bytes load_bytes(const uint8_t* p) { return _mm512_loadu_si512(p); }
    static void store_bytes(Bytes q, uint8_t* p) { _mm512_storeu_si512(p, q); }
    static Bytes pair(const void* lo, const void* hi) { return load_pair(lo, hi); }
    static Bytes nibbles_pair(const uint8_t* a, const uint8_t* b) {
        const __m256i aa = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a)));
        const __m256i bb = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));
        const __m512i v = _mm512_inserti64x4(_mm512_zextsi256_si512(aa), bb, 1);  // a a b b
        // Shift the second copy of each (16-bit elements 8..15 of each 256 bits).
        return _mm512_and_si512(_mm512_mask_srli_epi16(v, 0xFF00FF00u, v, 4), _mm512_set1_epi8(0xF));
    }
    template <int S0, int S1>
    static Bytes fields(const uint8_t* p, uint8_t m) {
        const __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        const __m512i shifted = _mm512_mask_srli_epi16(_mm512_srli_epi16(v, S0), 0xFFFF0000u, v, S1);
        return _mm512_and_si512(shifted, _mm512_set1_epi8(char(m)));
    }
    static Bytes nibbles_in_place(const uint8_t* p) {
        const __m512i v = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
        return _mm512_and_si512(v, _mm512_inserti64x4(_mm512_set1_epi8(0x0F), _mm256_set1_epi8(char(0xF0)), 1));
    }
    template <int S>
    static Bytes field(const uint8_t* p, uint8_t m) {
        return _mm512_and_si512(_mm512_srli_epi16(_mm512_loadu_si512(p), S), _mm512_set1_epi8(char(m)));
    }
    template <int S>
    static Bytes bits(Bytes q, uint8_t m) {
        return _mm512_and_si512(_mm512_srli_epi16(q, S), _mm512_set1_epi8(char(m)));
    }
    template <std::array<int16_t, 32> Index>
    static Bytes words(const uint8_t* a, const uint8_t* b) {
        static constexpr std::array<int16_t, 32> kIndex = Index;
        return window_words(a, b, kIndex.data());
    }
    template <std::array<int8_t, 16> Index>
    static Bytes dwords(Bytes a, Bytes b) {
        static constexpr std::array<int32_t, 16> kIndex = [] {
            std::array<int32_t, 16> idx{};
            for (size_t i = 0; i < 16; ++i) idx[i] = Index[i];
            return idx;
        }();
        return _mm512_permutex2var_epi32(a, _mm512_loadu_si512(kIndex.data()), b);
    }
    template <std::array<uint32_t, 16> Mask>
    static Bytes and_lanes(Bytes q) {
        static constexpr std::array<uint32_t, 16> kMask = Mask;
        return _mm512_and_si512(q, _mm512_loadu_si512(kMask.data()));
    }
    template <int S>
    static Bytes shl(Bytes q) {
        return _mm512_slli_epi16(q, S);  // no carry between bytes: every value < 256 >> S
    }
    static Bytes or_(Bytes a, Bytes b) { return _mm512_or_si512(a, b); }
    static Bytes xor_(Bytes q, uint8_t m) { return _mm512_xor_si512(q, _mm512_set1_epi8(char(m))); }
    static Bytes and_(Bytes q, uint8_t m) { return _mm512_and_si512(q, _mm512_set1_epi8(char(m))); }
    static Bytes set_where(Bytes q, uint64_t bits, uint8_t v) {
        return _mm512_mask_add_epi8(q, __mmask64(bits), q, _mm512_set1_epi8(char(v)));
    }
    static Bytes lookup(Bytes q, const uint8_t* table) {
        return _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table))),
                                   q);
    }

    template <int Stride, int Readable>
    static Acc halves(const uint8_t* p) {
        const __m512i words = HalvesWindows<Stride, Readable>::words(p);
        return _mm512_zextps256_ps512(_mm256_cvtph_ps(_mm512_castsi512_si128(words)));
    }
    static Acc first_halves(Bytes w) { return _mm512_zextps256_ps512(_mm256_cvtph_ps(_mm512_castsi512_si128(w))); }
    static Acc high8(Acc v) { return _mm512_zextps256_ps512(_mm512_extractf32x8_ps(v, 1)); }
    static Acc from_u8(uint64_t lo, uint64_t hi) {
        return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_set_epi64x(int64_t(hi), int64_t(lo))));
    }
    static Acc from_i8(uint64_t lo, uint64_t hi) {
        return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_set_epi64x(int64_t(hi), int64_t(lo))));
    }
    // Up to four blocks, one per 128-bit lane: dwords dd = d | dmin << 16, then
    // the packed u0, u1, u2, which give a dword each of
    //   scales 0..3 = u0 & 63, scales 4..7 = (u2 & 15) | (u0 >> 2 & 0x30),
    //   mins 0..3 = u1 & 63,   mins 4..7 = (u2 >> 4 & 15) | (u1 >> 2 & 0x30).
    template <int R>
    static void k_scales_mins(const uint8_t* const* blocks, Acc* out) {
        if constexpr (R > 4) {
            k_scales_mins<4>(blocks, out);
            k_scales_mins<R - 4>(blocks + 4, out + 4);
        } else {
            const auto load = [&](int r) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[r])); };
            __m512i v = _mm512_castsi128_si512(load(0));
            if constexpr (R > 1) v = _mm512_inserti32x4(v, load(1), 1);
            if constexpr (R > 2) v = _mm512_inserti32x4(v, load(2), 2);
            if constexpr (R > 3) v = _mm512_inserti32x4(v, load(3), 3);
            const auto lanes = [](int a, int b, int c, int d) { return _mm512_broadcast_i32x4(_mm_set_epi32(d, c, b, a)); };
            const __m512i low = _mm512_srlv_epi32(_mm512_shuffle_epi32(v, _MM_PERM_ENUM(_MM_SHUFFLE(3, 2, 3, 1))),
                                                  lanes(0, 0, 0, 4));
            const __m512i top = _mm512_and_si512(_mm512_srli_epi32(_mm512_shuffle_epi32(v, _MM_PERM_ENUM(_MM_SHUFFLE(2, 2, 1, 1))), 2),
                                                 lanes(0, 0x30303030, 0, 0x30303030));
            // (low & mask) | top: per lane the 8 scales, then the 8 mins
            const __m512i bytes = _mm512_ternarylogic_epi32(low, lanes(0x3F3F3F3F, 0x0F0F0F0F, 0x3F3F3F3F, 0x0F0F0F0F), top, 0xEA);
            // d, -dmin of block r in lanes 2r, 2r + 1
            const __m256 dd = _mm256_cvtph_ps(_mm512_castsi512_si128(
                _mm512_permutexvar_epi32(_mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 8, 4, 0), v)));
            const __m512 d = _mm512_castps256_ps512(_mm256_xor_ps(dd, _mm256_set_ps(-0.0f, 0, -0.0f, 0, -0.0f, 0, -0.0f, 0)));
            [&]<int... r>(std::integer_sequence<int, r...>) {
                ((out[r] = _mm512_mul_ps(
                      _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, r))),
                      _mm512_permutexvar_ps(_mm512_set_epi32(2 * r + 1, 2 * r + 1, 2 * r + 1, 2 * r + 1, 2 * r + 1, 2 * r + 1,
                                                             2 * r + 1, 2 * r + 1, 2 * r, 2 * r, 2 * r, 2 * r, 2 * r, 2 * r,
                                                             2 * r, 2 * r),
                                            d))),
                 ...);
            }(std::make_integer_sequence<int, R>{});
        }
    }

    static Ints dot(const int32_t* bias, Bytes q, const int8_t* a) {
        return dot_u8s8(_mm512_loadu_si512(bias), q, _mm512_loadu_si512(a));
    }
    static Ints dot16(const int32_t* bias, Bytes q, const int8_t* hi, const int8_t* lo) {
        const __m512i high = dot_u8s8(_mm512_setzero_si512(), q, _mm512_loadu_si512(hi));
        return dot_u8s8(_mm512_add_epi32(_mm512_loadu_si512(bias), _mm512_slli_epi32(high, 8)), q,
                        _mm512_loadu_si512(lo));
    }
    static Ints zero_ints() { return _mm512_setzero_si512(); }
    static Ints dot_acc(Ints acc, Bytes q, const int8_t* a) { return dot_u8s8(acc, q, _mm512_loadu_si512(a)); }
    static Ints shl8_add(Ints hi, Ints lo) { return _mm512_add_epi32(_mm512_slli_epi32(hi, 8), lo); }
    template <std::array<int32_t, 16> Index>
    static Acc permute(Acc v) {
        static constexpr std::array<int32_t, 16> kIndex = Index;
        return _mm512_permutexvar_ps(_mm512_loadu_si512(kIndex.data()), v);
    }
    // In-lane: a span's scales are arranged for it once per row (chunk_lanes,
    // one lane-crossing permute), cheaper than a permute per chunk
    // (docs/measured-choices.md#scales-arranged-once-per-row).
    template <int C>
    static Acc spread(Acc lanes) {
        return _mm512_permute_ps(lanes, C * 0x55);
    }
    static Acc fma_int(Ints i, Acc s, Acc acc) { return _mm512_fmadd_ps(_mm512_cvtepi32_ps(i), s, acc); }
    template <int Q>
    static Acc values(Bytes q, Acc s, Acc b) {
        return _mm512_fmadd_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(q, Q))), s, b);
    }
    // 4 x 4 blocks within each 128-bit lane (unpacks of floats, then of float
    // pairs), then the lanes of every fourth vector (two 128-bit shuffles).
    static void transpose(const Acc* in, Acc* out) {
        __m512 t[16], c[16];
        for (int i = 0; i < 8; ++i) {
            t[2 * i] = _mm512_unpacklo_ps(in[2 * i], in[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(in[2 * i], in[2 * i + 1]);
        }
        // c[4i + j], lane L: column 4L + j of rows 4i .. 4i + 3
        for (int i = 0; i < 4; ++i)
            for (int h = 0; h < 2; ++h) {
                const __m512d a = _mm512_castps_pd(t[4 * i + h]), b = _mm512_castps_pd(t[4 * i + 2 + h]);
                c[4 * i + 2 * h] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
                c[4 * i + 2 * h + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
            }
        for (int j = 0; j < 4; ++j) {
            const __m512 u0 = _mm512_shuffle_f32x4(c[j], c[4 + j], 0x44), u1 = _mm512_shuffle_f32x4(c[j], c[4 + j], 0xEE);
            const __m512 u2 = _mm512_shuffle_f32x4(c[8 + j], c[12 + j], 0x44),
                         u3 = _mm512_shuffle_f32x4(c[8 + j], c[12 + j], 0xEE);
            out[j] = _mm512_shuffle_f32x4(u0, u2, 0x88);
            out[4 + j] = _mm512_shuffle_f32x4(u0, u2, 0xDD);
            out[8 + j] = _mm512_shuffle_f32x4(u1, u3, 0x88);
            out[12 + j] = _mm512_shuffle_f32x4(u1, u3, 0xDD);
        }
    }

    static float half(uint16_t h) { return _cvtsh_ss(h); }
    static Acc widen(const F32::Block* w) { return _mm512_loadu_ps(w); }
    static Acc widen(const F16::Block* w) {
        return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
    }
    static Acc widen(const BF16::Block* w) {
        const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w)));
        return _mm512_castsi512_ps(_mm512_slli_epi32(wide, 16));
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail

#endif  // __AVX512BW__
