// The activation side of the CPU matmul: x rows converted to the weight type's
// dot type (llama.cpp's rounding), laid out for the driver's chunked dots.
//
// Integer weight types, per row (k256 = k rounded up to kSpan, zero padded):
//   int8  a[k256]            the dot type's q
//   int32 bias[k256 / 4]     -kOffset * (sum of each 4 q): folds the weight
//                            offset into the integer dot (q - kOffset) * a
//   float scale[k256 / 4]    the dot type's d of each 4 values
//   float gscale[groups]     the dot type's d of each weight group
//   float amin[groups]       per weight group, the term its min multiplies
//                            (Q8_K: d * sum of the group's q; Q8_1: s); only with mins
// groups is k256 / kGroup + 8 rounded up to 16, so that 16 floats from any
// span's first group can be loaded.
// With ActivationPrecision::Q16 (kWide), a holds the high halves, and after it
//   int8  lo[k256]           the low halves: q = 256 * a + lo
// and every other part is that of q (bias, scale, gscale and amin per block
// of kQ16Block values).
// Float weight types: float a[k rounded up to kFloatSpan], x rounded to the
// dot type (Q8) or x itself (Q16).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/unpack.hpp"
#include "kernels/quant/types/q8_0.hpp"
#include "kernels/quant/types/q8_1.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

constexpr int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

// x rounded to a dot type: the activation quantizer where the type has one.
template <class D>
void quantize_activation(const float* x, typename D::Block& b) {
    if constexpr (requires { D::quantize_activation(x, b); })
        D::quantize_activation(x, b);
    else
        D::quantize(x, b);
}

// ActivationPrecision::Q16 blocks: v = round(x / d) with d = amax / kQ16Max, stored
// as two signed bytes hi, lo with v = 256 * hi + lo (so the 8-bit integer
// dots serve). kQ16Max keeps hi = (v + 128) >> 8 within [-127, 127].
inline constexpr int64_t kQ16Block = 32;
inline constexpr float kQ16Max = 127 * 256 + 127;

struct Q16Block {
    float d;
    int16_t v[kQ16Block];
};

inline void quantize_q16(const float* x, Q16Block& b) {
    float amax = 0.0f;
    for (int64_t i = 0; i < kQ16Block; ++i) amax = std::max(amax, std::fabs(x[i]));
    b.d = amax / kQ16Max;
    const float id = amax > 0.0f ? kQ16Max / amax : 0.0f;
    for (int64_t i = 0; i < kQ16Block; ++i) b.v[i] = int16_t(std::nearbyint(x[i] * id));
}
inline int8_t q16_high(int16_t v) { return int8_t((v + 128) >> 8); }
inline int8_t q16_low(int16_t v) { return int8_t(v - 256 * q16_high(v)); }

// What the driver needs of an integer dot type's block.
template <class D>
struct ActivationTerms;

template <>
struct ActivationTerms<Q8_0> {
    static float scale(const Q8_0::Block& b) { return fp16_to_fp32(b.d); }
};
template <>
struct ActivationTerms<Q8_1> {
    static float scale(const Q8_1::Block& b) { return fp16_to_fp32(b.d); }
    static float min_term(const Q8_1::Block& b, int /*group*/, int /*group_len*/) { return fp16_to_fp32(b.s); }
};
template <>
struct ActivationTerms<Q8_K> {
    static float scale(const Q8_K::Block& b) { return b.d; }
    static float min_term(const Q8_K::Block& b, int group, int group_len) {
        int32_t sum = 0;
        for (int s = group * group_len / 16; s < (group + 1) * group_len / 16; ++s) sum += b.bsums[s];
        return b.d * float(sum);
    }
};

// Where each part of one activation row lies in `work`.
template <class T, ActivationPrecision kActivations>
struct ActivationLayout {
    using U = Unpack<T>;
    static constexpr bool kWide = U::kInt && kActivations == ActivationPrecision::Q16;
    int64_t k, padded, groups = 0;
    size_t row_bytes;

    explicit ActivationLayout(int64_t k_) : k(k_) {
        if constexpr (U::kInt) {
            padded = round_up(k, kSpan);
            groups = round_up(padded / U::kGroup + 8, 16);
            row_bytes = size_t((kWide ? 4 : 3) * padded + 4 * groups * (U::kHasMin ? 2 : 1));
        } else {
            padded = round_up(k, kFloatSpan);
            row_bytes = size_t(round_up(4 * padded, 64));
        }
    }
    int8_t* a(uint8_t* row) const { return reinterpret_cast<int8_t*>(row); }
    int32_t* bias(uint8_t* row) const { return reinterpret_cast<int32_t*>(row + padded); }
    float* scale(uint8_t* row) const { return reinterpret_cast<float*>(row + 2 * padded); }
    float* gscale(uint8_t* row) const { return reinterpret_cast<float*>(row + 3 * padded); }
    float* amin(uint8_t* row) const { return reinterpret_cast<float*>(row + 3 * padded + 4 * groups); }
    int8_t* lo(uint8_t* row) const {
        return reinterpret_cast<int8_t*>(row + 3 * padded + 4 * groups * (U::kHasMin ? 2 : 1));
    }
    float* values(uint8_t* row) const { return reinterpret_cast<float*>(row); }

    // Lane l: bias + the integer dot of the chunk's weights q with the values
    // [at + 4l, at + 4l + 4) of the activation row.
    template <class Ops, class Bytes>
    [[gnu::always_inline]] auto dot(uint8_t* row, int64_t at, const Bytes& q) const {
        if constexpr (kWide)
            return Ops::dot16(bias(row) + at / 4, q, a(row) + at, lo(row) + at);
        else
            return Ops::dot(bias(row) + at / 4, q, a(row) + at);
    }
};

// The per-4-values and per-group parts of the values [i, i + E) of a work row
// whose integer values q (weight offset not yet folded in) are in place.
template <class T, ActivationPrecision A>
void fill_terms(const ActivationLayout<T, A>& layout, uint8_t* row, int64_t i, int64_t E, const int32_t* q, float d,
                const float* min_terms) {
    using U = Unpack<T>;
    int32_t* bias = layout.bias(row);
    float* scale = layout.scale(row);
    for (int64_t l = i / 4; l < (i + E) / 4; ++l) {
        bias[l] = -U::kOffset * (q[4 * l - i] + q[4 * l - i + 1] + q[4 * l - i + 2] + q[4 * l - i + 3]);
        scale[l] = d;
    }
    constexpr int G = U::kGroup;
    for (int64_t g = 0; g < E / G; ++g) {
        layout.gscale(row)[i / G + g] = d;
        if constexpr (U::kHasMin) layout.amin(row)[i / G + g] = min_terms[g];
    }
}

// Converts values [begin, end) of one x row (block aligned) into its work row.
template <class T, ActivationPrecision A>
void convert_span(const ActivationLayout<T, A>& layout, const float* x, int64_t begin, int64_t end, uint8_t* row) {
    using U = Unpack<T>;
    using D = typename T::DotType;
    using Layout = ActivationLayout<T, A>;
    constexpr int64_t E = T::block_elems;
    const bool last = end == layout.k;
    if constexpr (Layout::kWide) {
        constexpr int64_t G = U::kGroup;
        static_assert(kQ16Block % G == 0 && E % kQ16Block == 0);
        Q16Block b;
        int32_t q[kQ16Block];
        float min_terms[kQ16Block / G];
        for (int64_t i = begin; i < end; i += kQ16Block) {
            quantize_q16(x + i, b);
            for (int64_t e = 0; e < kQ16Block; ++e) {
                layout.a(row)[i + e] = q16_high(b.v[e]);
                layout.lo(row)[i + e] = q16_low(b.v[e]);
                q[e] = b.v[e];
            }
            for (int64_t g = 0; g < kQ16Block / G; ++g) {
                int32_t sum = 0;
                for (int64_t e = g * G; e < (g + 1) * G; ++e) sum += q[e];
                min_terms[g] = b.d * float(sum);
            }
            fill_terms(layout, row, i, kQ16Block, q, b.d, min_terms);
        }
    } else if constexpr (U::kInt) {
        typename D::Block b;
        int32_t q[E];
        float min_terms[E / U::kGroup];
        for (int64_t i = begin; i < end; i += E) {
            quantize_activation<D>(x + i, b);
            std::memcpy(layout.a(row) + i, b.qs, E);
            for (int64_t e = 0; e < E; ++e) q[e] = b.qs[e];
            if constexpr (U::kHasMin)
                for (int g = 0; g < E / U::kGroup; ++g) min_terms[g] = ActivationTerms<D>::min_term(b, g, U::kGroup);
            fill_terms(layout, row, i, E, q, ActivationTerms<D>::scale(b), min_terms);
        }
    } else if constexpr (A == ActivationPrecision::Q16) {
        std::memcpy(layout.values(row) + begin, x + begin, size_t(4 * (end - begin)));
    } else {
        typename D::Block b;
        for (int64_t i = begin; i < end; ++i) {
            quantize_activation<D>(x + i, b);
            D::dequantize(b, layout.values(row) + i);
        }
    }
    if (!last) return;
    if constexpr (U::kInt) {
        const size_t tail = size_t(layout.padded - layout.k);
        std::memset(layout.a(row) + layout.k, 0, tail);
        if constexpr (Layout::kWide) std::memset(layout.lo(row) + layout.k, 0, tail);
        std::memset(layout.bias(row) + layout.k / 4, 0, tail);
        std::memset(layout.scale(row) + layout.k / 4, 0, tail);
        const int64_t used = layout.k / U::kGroup;
        std::memset(layout.gscale(row) + used, 0, size_t(4 * (layout.groups - used)));
        if constexpr (U::kHasMin) std::memset(layout.amin(row) + used, 0, size_t(4 * (layout.groups - used)));
    } else {
        std::memset(layout.values(row) + layout.k, 0, size_t(4 * (layout.padded - layout.k)));
    }
}

// This thread's share of converting all m rows; the caller then waits for the team.
template <class T, ActivationPrecision A>
void convert_activations(const ActivationLayout<T, A>& layout, const MatmulArgs& args, uint8_t* work,
                         const ThreadTeam& team) {
    // Units of at least 64 values (whole blocks) so that threads do not share cache lines.
    constexpr int64_t unit = T::block_elems >= 64 ? T::block_elems : 64;
    const int64_t per_row = (args.k + unit - 1) / unit;
    const auto [begin, end] = team.split(args.m * per_row);
    for (int64_t u = begin; u < end; ++u) {
        const int64_t i = u / per_row, first = u % per_row * unit;
        const auto* x = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.x) + i * args.x_stride);
        convert_span(layout, x, first, std::min(args.k, first + unit), work + i * layout.row_bytes);
    }
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
