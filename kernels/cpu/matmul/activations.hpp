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
#include "kernels/cpu/matmul/activation_ops.hpp"
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

// A dot type's activation quantizer on one block, bit for bit the type's
// quantize_activation, with the loops of ActivationOps<Arch>: q, and the
// block's Terms: d, the scale the dots use, and min_term(sum of a weight
// group's q), what the group's min multiplies.
template <class Arch, class D>
struct ActivationQuant;

template <class Arch>
struct ActivationQuant<Arch, Q8_0> {
    using Ops = ActivationOps<Arch>;
    struct Terms {
        float d;
        float unrounded_d;
    };
    static Terms quantize(const float* x, int8_t* q) {
        const float amax = Ops::max_abs(x, 32);
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        Ops::round_bytes(x, 32, std::isfinite(id) ? id : 0.0f, q);  // float-subnormal blocks quantize to 0
        return {fp16_to_fp32(fp32_to_fp16(amax / 127.0f)), amax / 127.0f};
    }
};
template <class Arch>
struct ActivationQuant<Arch, Q8_1> {  // Q8_0's q and d, and s
    using Base = ActivationQuant<Arch, Q8_0>;
    struct Terms : Base::Terms {
        float min_term(int32_t sum) const { return fp16_to_fp32(fp32_to_fp16(this->unrounded_d * float(sum))); }
    };
    static Terms quantize(const float* x, int8_t* q) { return {Base::quantize(x, q)}; }
};
template <class Arch>
struct ActivationQuant<Arch, Q8_K> {
    using Ops = ActivationOps<Arch>;
    struct Terms {
        float d;
        float min_term(int32_t group_sum) const { return d * float(group_sum); }
    };
    static Terms quantize(const float* x, int8_t* q) {
        const float amax = Ops::max_abs(x, 256);
        if (amax == 0.0f) {
            std::memset(q, 0, 256);
            return {0.0f};
        }
        // The first value of the largest magnitude maps to -127.
        const float iscale = -127.0f / x[Ops::first_of_magnitude(x, 256, amax)];
        if (std::isfinite(iscale))
            Ops::round_bytes(x, 256, iscale, q);
        else  // float-subnormal max: 0, as Q8_K::quantize
            std::memset(q, 0, 256);
        return {1.0f / iscale};
    }
};

// ActivationPrecision::Q16 blocks: v = round(x / d) with d = amax / kQ16Max, stored
// as two signed bytes hi, lo with v = 256 * hi + lo (so the 8-bit integer
// dots serve). kQ16Max keeps hi = (v + 128) >> 8 within [-127, 127].
inline constexpr int64_t kQ16Block = 32;
inline constexpr float kQ16Max = 127 * 256 + 127;

// The scalar quantizer of the reference: v of one block into q; returns d.
inline float quantize_q16(const float* x, int32_t* q) {
    float amax = 0.0f;
    for (int64_t i = 0; i < kQ16Block; ++i) amax = std::max(amax, std::fabs(x[i]));
    const float id = amax > 0.0f ? kQ16Max / amax : 0.0f;
    for (int64_t i = 0; i < kQ16Block; ++i) q[i] = int32_t(std::nearbyint(x[i] * id));
    return amax / kQ16Max;
}
template <class Arch>
struct Q16Quant {
    using Ops = ActivationOps<Arch>;
    struct Terms {
        float d;
        float min_term(int32_t group_sum) const { return d * float(group_sum); }
    };
    static Terms quantize(const float* x, int8_t* hi, int8_t* lo) {
        const float amax = Ops::max_abs(x, kQ16Block);
        Ops::round_halves(x, kQ16Block, amax > 0.0f ? kQ16Max / amax : 0.0f, hi, lo);
        return {amax / kQ16Max};
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

    // Stable chunks (stable_lanes.hpp) add their dots up in kSums integer
    // vectors: the dots with the activation bytes, and with 16-bit activations
    // those with the low bytes; total() gives the lanes' dots. A class's first
    // chunk starts them from its bias (zero where kOffset is 0).
    static constexpr int kSums = kWide ? 2 : 1;
    template <class Ops, class Bytes, class Ints>
    [[gnu::always_inline]] void dot_start(uint8_t* row, int64_t at, const Bytes& q, Ints* sums) const {
        if constexpr (U::kOffset == 0) {
            for (int i = 0; i < kSums; ++i) sums[i] = Ops::zero_ints();
            dot_acc<Ops>(row, at, q, sums);
        } else if constexpr (kWide) {
            sums[0] = Ops::dot_acc(Ops::zero_ints(), q, a(row) + at);
            sums[1] = Ops::dot(bias(row) + at / 4, q, lo(row) + at);
        } else {
            sums[0] = Ops::dot(bias(row) + at / 4, q, a(row) + at);
        }
    }
    template <class Ops, class Bytes, class Ints>
    [[gnu::always_inline]] void dot_acc(uint8_t* row, int64_t at, const Bytes& q, Ints* sums) const {
        sums[0] = Ops::dot_acc(sums[0], q, a(row) + at);
        if constexpr (kWide) sums[1] = Ops::dot_acc(sums[1], q, lo(row) + at);
    }
    template <class Ops, class Ints>
    [[gnu::always_inline]] static Ints total(const Ints* sums) {
        if constexpr (kWide)
            return Ops::shl8_add(sums[0], sums[1]);
        else
            return sums[0];
    }
};

// The parts of the E values from i of a work row other than their bytes: the
// bias from the sums of each 4 q (bias_sums4(c, out) writes c times them),
// the scales, and the min terms from the groups' sums of q
// (group_sums(c, out) writes c times them), only where the weights have mins.
template <int64_t E, class T, ActivationPrecision A, class Terms, class Sums4, class GroupSums>
void fill_terms(const ActivationLayout<T, A>& layout, uint8_t* row, int64_t i, const Terms& terms,
                Sums4&& bias_sums4, GroupSums&& group_sums) {
    using U = Unpack<T>;
    constexpr int64_t G = U::kGroup;
    bias_sums4(-U::kOffset, layout.bias(row) + i / 4);
    std::fill_n(layout.scale(row) + i / 4, E / 4, terms.d);
    std::fill_n(layout.gscale(row) + i / G, E / G, terms.d);
    if constexpr (U::kHasMin) {
        int32_t sums[E / G];
        group_sums(sums);
        for (int64_t g = 0; g < E / G; ++g) layout.amin(row)[i / G + g] = terms.min_term(sums[g]);
    }
}

// Converts values [begin, end) of one x row (block aligned) into its work row.
template <class Arch, class T, ActivationPrecision A>
void convert_span(const ActivationLayout<T, A>& layout, const float* x, int64_t begin, int64_t end, uint8_t* row) {
    using U = Unpack<T>;
    using D = typename T::DotType;
    using Ops = ActivationOps<Arch>;
    using Layout = ActivationLayout<T, A>;
    const bool last = end == layout.k;
    if constexpr (Layout::kWide) {
        constexpr int G = int(U::kGroup);
        static_assert(kQ16Block % G == 0 && T::block_elems % kQ16Block == 0);
        constexpr int64_t E = kQ16Block;
        for (int64_t i = begin; i < end; i += E) {
            int8_t *hi = layout.a(row) + i, *lo = layout.lo(row) + i;
            const auto terms = Q16Quant<Arch>::quantize(x + i, hi, lo);
            fill_terms<E>(
                layout, row, i, terms,
                [&](int32_t c, int32_t* out) {  // q = 256 hi + lo
                    Ops::template sums4<false>(hi, E, 256 * c, out);
                    Ops::template sums4<true>(lo, E, c, out);
                },
                [&](int32_t* out) {
                    Ops::template group_sums<G, false>(hi, E, 256, out);
                    Ops::template group_sums<G, true>(lo, E, 1, out);
                });
        }
    } else if constexpr (U::kInt) {
        constexpr int G = int(U::kGroup);
        constexpr int64_t E = D::block_elems;
        static_assert(T::block_elems % E == 0);
        for (int64_t i = begin; i < end; i += E) {
            int8_t* q = layout.a(row) + i;
            const auto terms = ActivationQuant<Arch, D>::quantize(x + i, q);
            fill_terms<E>(
                layout, row, i, terms, [&](int32_t c, int32_t* out) { Ops::template sums4<false>(q, E, c, out); },
                [&](int32_t* out) { Ops::template group_sums<G, false>(q, E, 1, out); });
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
template <class Arch, class T, ActivationPrecision A>
void convert_activations(const ActivationLayout<T, A>& layout, const MatmulArgs& args, uint8_t* work,
                         const ThreadTeam& team) {
    // Units of at least 64 values (whole blocks) so that threads do not share cache lines.
    constexpr int64_t unit = T::block_elems >= 64 ? T::block_elems : 64;
    const int64_t per_row = (args.k + unit - 1) / unit;
    const auto [begin, end] = team.split(args.m * per_row);
    for (int64_t u = begin; u < end; ++u) {
        const int64_t i = u / per_row, first = u % per_row * unit;
        const auto* x = reinterpret_cast<const float*>(reinterpret_cast<const char*>(args.x) + i * args.x_stride);
        convert_span<Arch>(layout, x, first, std::min(args.k, first + unit), work + i * layout.row_bytes);
    }
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
