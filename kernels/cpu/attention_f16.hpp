// F16 conversions of the attention kernel, per xsimd arch (xsimd has no f16
// batch). The generic version converts with half.hpp; arches with F16C or
// AVX-512F use the hardware conversions. Only included by kernel sources
// compiled with their arch's flags; a specialization is only instantiated by
// the arch it is for. The hardware paths avoid half.hpp so that no inline
// function compiled with AVX flags is shared with other translation units.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <xsimd/xsimd.hpp>

#include "kernels/quant/half.hpp"

namespace tessera::cpu::attention_detail {

template <class Arch>
struct F16Ops {
    using Batch = xsimd::batch<float, Arch>;

    static void to_f32(const uint16_t* src, float* dst, int64_t n) {
        for (int64_t i = 0; i < n; ++i) dst[i] = fp16_to_fp32(src[i]);
    }
    // f32(f16(x)) per lane, round to nearest even.
    static Batch round(Batch x) {
        alignas(64) float lanes[Batch::size];
        x.store_aligned(lanes);
        for (float& f : lanes) f = fp16_to_fp32(fp32_to_fp16(f));
        return Batch::load_aligned(lanes);
    }
};

template <class Arch>
    requires std::is_base_of_v<xsimd::avx512f, Arch>
struct F16Ops<Arch> {
    using Batch = xsimd::batch<float, Arch>;

    static void to_f32(const uint16_t* src, float* dst, int64_t n) {
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
        if (i < n) {  // the tail through a zero-padded full vector
            alignas(32) uint16_t h[16] = {};
            alignas(64) float f[16];
            std::memcpy(h, src + i, size_t(n - i) * sizeof(uint16_t));
            _mm512_store_ps(f, _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(h))));
            std::memcpy(dst + i, f, size_t(n - i) * sizeof(float));
        }
    }
    static Batch round(Batch x) { return _mm512_cvtph_ps(_mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT)); }
};

#ifdef __F16C__
template <class Arch>
    requires std::is_base_of_v<xsimd::avx2, Arch>
struct F16Ops<Arch> {
    using Batch = xsimd::batch<float, Arch>;

    static void to_f32(const uint16_t* src, float* dst, int64_t n) {
        int64_t i = 0;
        for (; i + 8 <= n; i += 8)
            _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
        if (i < n) {  // the tail through a zero-padded full vector
            alignas(16) uint16_t h[8] = {};
            alignas(32) float f[8];
            std::memcpy(h, src + i, size_t(n - i) * sizeof(uint16_t));
            _mm256_store_ps(f, _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(h))));
            std::memcpy(dst + i, f, size_t(n - i) * sizeof(float));
        }
    }
    static Batch round(Batch x) { return _mm256_cvtph_ps(_mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT)); }
};
#endif

}  // namespace tessera::cpu::attention_detail
