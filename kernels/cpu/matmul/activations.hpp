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
// Float weight types: float a[k rounded up to kFloatSpan], x rounded to the dot type.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/unpack.hpp"
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
template <class T>
struct ActivationLayout {
    using U = Unpack<T>;
    int64_t k, padded, groups = 0;
    size_t row_bytes;

    explicit ActivationLayout(int64_t k_) : k(k_) {
        if constexpr (U::kInt) {
            padded = round_up(k, kSpan);
            groups = round_up(padded / U::kGroup + 8, 16);
            row_bytes = size_t(3 * padded + 4 * groups * (U::kHasMin ? 2 : 1));
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
    float* values(uint8_t* row) const { return reinterpret_cast<float*>(row); }
};

// Converts values [begin, end) of one x row (block aligned) into its work row.
template <class T>
void convert_span(const ActivationLayout<T>& layout, const float* x, int64_t begin, int64_t end, uint8_t* row) {
    using U = Unpack<T>;
    using D = typename T::DotType;
    constexpr int64_t E = T::block_elems;
    const bool last = end == layout.k;
    if constexpr (U::kInt) {
        int8_t* a = layout.a(row);
        int32_t* bias = layout.bias(row);
        float* scale = layout.scale(row);
        typename D::Block b;
        for (int64_t i = begin; i < end; i += E) {
            quantize_activation<D>(x + i, b);
            std::memcpy(a + i, b.qs, E);
            const float d = ActivationTerms<D>::scale(b);
            for (int64_t l = i / 4; l < (i + E) / 4; ++l) {
                bias[l] = -U::kOffset * (a[4 * l] + a[4 * l + 1] + a[4 * l + 2] + a[4 * l + 3]);
                scale[l] = d;
            }
            constexpr int G = U::kGroup;
            for (int g = 0; g < E / G; ++g) {
                layout.gscale(row)[i / G + g] = d;
                if constexpr (U::kHasMin) layout.amin(row)[i / G + g] = ActivationTerms<D>::min_term(b, g, G);
            }
        }
        if (last) {
            std::memset(a + layout.k, 0, size_t(layout.padded - layout.k));
            std::memset(bias + layout.k / 4, 0, size_t(layout.padded - layout.k));
            std::memset(scale + layout.k / 4, 0, size_t(layout.padded - layout.k));
            const int64_t used = layout.k / U::kGroup;
            std::memset(layout.gscale(row) + used, 0, size_t(4 * (layout.groups - used)));
            if constexpr (U::kHasMin) std::memset(layout.amin(row) + used, 0, size_t(4 * (layout.groups - used)));
        }
    } else {
        float* v = layout.values(row);
        typename D::Block b;
        for (int64_t i = begin; i < end; ++i) {
            quantize_activation<D>(x + i, b);
            D::dequantize(b, v + i);
        }
        if (last) std::memset(v + layout.k, 0, size_t(4 * (layout.padded - layout.k)));
    }
}

// This thread's share of converting all m rows; the caller then waits for the team.
template <class T>
void convert_activations(const ActivationLayout<T>& layout, const MatmulArgs& args, uint8_t* work,
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
