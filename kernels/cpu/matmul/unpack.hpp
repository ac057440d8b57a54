// What each weight type contributes to the CPU matmul: how its values unpack
// into unsigned 8-bit values and float scales. The generic driver (driver.hpp)
// does everything else. The driver works on spans of kSpan = 256 values (one
// K-type block, eight blocks of the 32-value types), each four chunks of 64
// values. A span's values split into groups of kGroup values sharing a scale:
//
//   value[i] = scale[g] * (q[i] - kOffset) + min[g]-term,  g = i / kGroup
//
// where the min term enters the dot as min[g] * amin[g], amin[g] being the
// activation side's group term (Q8_K: d * sum of the group's q; Q8_1: s).
// An integer type's Unpack has
//   chunk<Ops, C>(span)           the 64 q of chunk C (0..3) of the span whose first block is span[0],
//                                 composed of the arch's byte operations (chunk_ops.hpp)
//   scales<Ops>(span, scale, min) the span's group scales and, when kHasMin, mins, as 16 float
//                                 lanes (min lanes past the span's groups 0; scale lanes past them
//                                 are never read)
// and optionally scales_rows<Ops, R>(spans, scale, min), the same of R rows at once.
//
// Everything here has internal linkage: a portable build compiles this header
// once per arch with different flags, and those copies must not be merged.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/quant/half.hpp"
#include "kernels/quant/types/bf16.hpp"
#include "kernels/quant/types/f16.hpp"
#include "kernels/quant/types/f32.hpp"
#include "kernels/quant/types/iq4_nl.hpp"
#include "kernels/quant/types/iq4_xs.hpp"
#include "kernels/quant/types/q2_k.hpp"
#include "kernels/quant/types/q3_k.hpp"
#include "kernels/quant/types/q4_0.hpp"
#include "kernels/quant/types/q4_1.hpp"
#include "kernels/quant/types/q4_k.hpp"
#include "kernels/quant/types/q5_0.hpp"
#include "kernels/quant/types/q5_1.hpp"
#include "kernels/quant/types/q5_k.hpp"
#include "kernels/quant/types/q6_k.hpp"
#include "kernels/quant/types/q8_0.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

inline constexpr int64_t kSpan = 256;
inline constexpr int64_t kFloatSpan = 64;  // the float types' span: four chunks of 16

// Weight types whose values are floats: F32, F16, BF16 (widened by the arch's
// ChunkOps, see chunk_ops.hpp).
template <class T>
struct FloatWeights {
    static constexpr bool kInt = false;
};

template <class T>
struct Unpack;

template <>
struct Unpack<F32> : FloatWeights<F32> {};
template <>
struct Unpack<F16> : FloatWeights<F16> {};
template <>
struct Unpack<BF16> : FloatWeights<BF16> {};

struct IntWeights {
    static constexpr bool kInt = true;
};

inline uint64_t le32(const uint8_t* p) {
    return uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
}

// The fp16 field at byte Offset of the 8 blocks of a 32-value type's span
// (halves_twice: each in two lanes).
template <class Ops, size_t Offset, class Block>
[[gnu::always_inline]] inline typename Ops::Acc span_halves(const Block* span) {
    constexpr int kStride = int(sizeof(Block)), kReadable = 8 * kStride - int(Offset);
    return Ops::template halves<kStride, kReadable>(reinterpret_cast<const uint8_t*>(span) + Offset);
}
template <class Ops, size_t Offset, class Block>
[[gnu::always_inline]] inline typename Ops::Acc span_halves_twice(const Block* span) {
    constexpr int kStride = int(sizeof(Block)), kReadable = 8 * kStride - int(Offset);
    return Ops::template halves_twice<kStride, kReadable>(reinterpret_cast<const uint8_t*>(span) + Offset);
}

// 1 in the even lanes, 1/16 in the odd ones.
alignas(64) constexpr std::array<float, 16> kOddSixteenth = [] {
    std::array<float, 16> t{};
    for (size_t l = 0; l < 16; ++l) t[l] = l % 2 ? 1.0f / 16 : 1.0f;
    return t;
}();

// The 32-value types' chunk C: blocks 2C and 2C + 1, 16 nibble bytes each (values 0..15 low, 16..31 high).
template <class Ops, int C, class Block>
auto nibble_chunk(const Block* span) {
    return Ops::nibbles_pair(span[2 * C].qs, span[2 * C + 1].qs);
}
// Q5_0 / Q5_1: bit j of the little-endian qh is bit 4 of value j.
template <class Ops, int C, class Block>
auto five_bit_chunk(const Block* span) {
    return Ops::set_where(nibble_chunk<Ops, C>(span), le32(span[2 * C].qh) | le32(span[2 * C + 1].qh) << 32, 16);
}

// IQ4_NL / IQ4_XS: the 16 levels + 128.
constexpr std::array<uint8_t, 16> kIq4Levels = [] {
    std::array<uint8_t, 16> t{};
    for (size_t i = 0; i < 16; ++i) t[i] = uint8_t(IQ4_NL::kValues[i] + 128);
    return t;
}();

// Without shifts: a block's low nibbles q become q + 128 and its high nibbles
// stay in place, 16q + 8, so that with kOffset = 136 the low 16 values are
// q - 8 and the high 16 are 16 (q - 8), in groups of 16 whose scale is d, d/16
// (exact: a power of two).
template <>
struct Unpack<Q4_0> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 136;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const Q4_0::Block* span) {
        return Ops::nibbles_in_place_pair(span[2 * C].qs, span[2 * C + 1].qs, 0x80, 0x08);
    }
    template <class Ops>
    static void scales(const Q4_0::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        scale = Ops::mul(span_halves_twice<Ops, offsetof(Q4_0::Block, d)>(span), Ops::load(kOddSixteenth.data()));
    }
};

template <>
struct Unpack<Q4_1> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops, int C>
    static auto chunk(const Q4_1::Block* span) {
        return nibble_chunk<Ops, C>(span);
    }
    template <class Ops>
    static void scales(const Q4_1::Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
        scale = span_halves<Ops, offsetof(Q4_1::Block, d)>(span);
        min = span_halves<Ops, offsetof(Q4_1::Block, m)>(span);
    }
};

template <>
struct Unpack<Q5_0> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 16;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const Q5_0::Block* span) {
        return five_bit_chunk<Ops, C>(span);
    }
    template <class Ops>
    static void scales(const Q5_0::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        scale = span_halves<Ops, offsetof(Q5_0::Block, d)>(span);
    }
};

template <>
struct Unpack<Q5_1> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops, int C>
    static auto chunk(const Q5_1::Block* span) {
        return five_bit_chunk<Ops, C>(span);
    }
    template <class Ops>
    static void scales(const Q5_1::Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
        scale = span_halves<Ops, offsetof(Q5_1::Block, d)>(span);
        min = span_halves<Ops, offsetof(Q5_1::Block, m)>(span);
    }
};

template <>
struct Unpack<Q8_0> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const Q8_0::Block* span) {
        return Ops::xor_(Ops::pair(span[2 * C].qs, span[2 * C + 1].qs), 0x80);  // q + 128
    }
    template <class Ops>
    static void scales(const Q8_0::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        scale = span_halves<Ops, offsetof(Q8_0::Block, d)>(span);
    }
};

template <>
struct Unpack<IQ4_NL> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const IQ4_NL::Block* span) {
        return Ops::lookup(nibble_chunk<Ops, C>(span), kIq4Levels.data());
    }
    template <class Ops>
    static void scales(const IQ4_NL::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        scale = span_halves<Ops, offsetof(IQ4_NL::Block, d)>(span);
    }
};

// Q2_K / Q3_K: each 128 values use 32 bytes of qs; value 32k + l of them has
// its two bits at bits 2k of byte l.
template <class Ops, int C>
auto crumb_chunk(const uint8_t* qs) {
    return Ops::template fields<4 * (C % 2), 4 * (C % 2) + 2>(qs + 32 * (C / 2), 3);
}
// Q3_K / Q5_K: value i's extra bit is bit i / 32 of bits[i % 32], moved to bit S.
template <class Ops, int C, int S>
auto high_bit_chunk(const uint8_t* bits) {
    return Ops::template shl<S>(Ops::template fields<2 * C, 2 * C + 1>(bits, 1));
}

template <>
struct Unpack<Q2_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops, int C>
    static auto chunk(const Q2_K::Block* span) {
        return crumb_chunk<Ops, C>(span->qs);
    }
    template <class Ops>
    static void scales(const Q2_K::Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
        uint64_t w[2];  // per group: scale in the low nibble, min in the high one
        std::memcpy(w, span->scales, 16);
        constexpr uint64_t kLow = 0x0F0F0F0F0F0F0F0Full;
        scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_u8(w[0] & kLow, w[1] & kLow));
        min = Ops::mul(Ops::set1(-Ops::half(span->dmin)), Ops::from_u8(w[0] >> 4 & kLow, w[1] >> 4 & kLow));
    }
};

template <>
struct Unpack<Q3_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 4;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const Q3_K::Block* span) {  // stored q + 4 = low + 4 * high
        return Ops::or_(crumb_chunk<Ops, C>(span->qs), high_bit_chunk<Ops, C, 2>(span->hmask));
    }
    template <class Ops>
    static void scales(const Q3_K::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        int8_t sc[16];
        for (int g = 0; g < 16; ++g) sc[g] = int8_t(Q3_K::scale(span->scales, g));
        uint64_t w[2];
        std::memcpy(w, sc, 16);
        scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w[0], w[1]));
    }
};

// Q4_K / Q5_K: the scales and mins of R rows' spans (blocks), see ChunkOps::k_scales_mins;
// the scales times `odd` in the odd groups.
template <class Ops, int R, class Block>
[[gnu::always_inline]] inline void k_scales_mins(const Block* const* b, typename Ops::Acc* scale,
                                                 typename Ops::Acc* min, const float* odd = nullptr) {
    static_assert(offsetof(Block, d) == 0 && offsetof(Block, dmin) == 2 && offsetof(Block, scales) == 4);
    const uint8_t* p[R];
    for (int r = 0; r < R; ++r) p[r] = reinterpret_cast<const uint8_t*>(b[r]);
    typename Ops::Acc both[R];
    Ops::template k_scales_mins<R>(p, both);
    for (int r = 0; r < R; ++r) {
        scale[r] = odd ? Ops::mul(both[r], Ops::load(odd)) : both[r];
        min[r] = Ops::high8(both[r]);
    }
}

template <>
struct Unpack<Q4_K> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    // 64 values per 32 bytes, the high nibbles (odd groups) left in place: their
    // q is 16 times the value, their scale a sixteenth (exact: a power of two).
    template <class Ops, int C>
    static auto chunk(const Q4_K::Block* span) {
        return Ops::nibbles_in_place(span->qs + 32 * C);
    }
    template <class Ops, int R>
    static void scales_rows(const Q4_K::Block* const* b, typename Ops::Acc* scale, typename Ops::Acc* min) {
        k_scales_mins<Ops, R>(b, scale, min, kOddSixteenth.data());
    }
    template <class Ops>
    static void scales(const Q4_K::Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
        scales_rows<Ops, 1>(&span, &scale, &min);
    }
};

template <>
struct Unpack<Q5_K> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops, int C>
    static auto chunk(const Q5_K::Block* span) {
        return Ops::or_(Ops::template fields<0, 4>(span->qs + 32 * C, 0xF), high_bit_chunk<Ops, C, 4>(span->qh));
    }
    template <class Ops, int R>
    static void scales_rows(const Q5_K::Block* const* b, typename Ops::Acc* scale, typename Ops::Acc* min) {
        k_scales_mins<Ops, R>(b, scale, min);
    }
    template <class Ops>
    static void scales(const Q5_K::Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
        scales_rows<Ops, 1>(&span, &scale, &min);
    }
};

template <>
struct Unpack<Q6_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 32;
    static constexpr bool kHasMin = false;
    // Each 128 values use 64 bytes of ql and 32 of qh: value 32k + l has its
    // low nibble in ql[l + 32*(k%2)] (the high one for k >= 2), its top bits
    // at bits 2k of qh[l].
    template <class Ops, int C>
    static auto chunk(const Q6_K::Block* span) {
        constexpr int S = 4 * (C % 2);
        return Ops::or_(Ops::template field<S>(span->ql + 64 * (C / 2), 0xF),
                        Ops::template shl<4>(Ops::template fields<S, S + 2>(span->qh + 32 * (C / 2), 3)));
    }
    template <class Ops>
    static void scales(const Q6_K::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        uint64_t w[2];
        std::memcpy(w, span->scales, 16);
        scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w[0], w[1]));
    }
};

template <>
struct Unpack<IQ4_XS> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops, int C>
    static auto chunk(const IQ4_XS::Block* span) {  // per group 16 bytes, as IQ4_NL
        return Ops::lookup(Ops::nibbles_pair(span->qs + 32 * C, span->qs + 32 * C + 16), kIq4Levels.data());
    }
    template <class Ops>
    static void scales(const IQ4_XS::Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
        uint64_t w = 0;
        for (int g = 0; g < 8; ++g) w |= uint64_t(uint8_t(IQ4_XS::scale(*span, g))) << (8 * g);
        scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w, 0));
    }
};

// The scales and mins of R rows' spans (first blocks b[r]): the type's
// scales_rows where it has one (all rows at once), else row by row.
template <class Ops, class T, int R>
[[gnu::always_inline]] inline void span_scales(const typename T::Block* const* b, typename Ops::Acc* scale,
                                               typename Ops::Acc* min) {
    if constexpr (requires { Unpack<T>::template scales_rows<Ops, R>(b, scale, min); })
        Unpack<T>::template scales_rows<Ops, R>(b, scale, min);
    else
        for (int r = 0; r < R; ++r) Unpack<T>::template scales<Ops>(b[r], scale[r], min[r]);
}

template <class T>
concept HasUnpack = requires { Unpack<T>::kInt; };

}  // namespace
}  // namespace tessera::cpu::matmul_detail
