// How the CPU matmul unpacks weights: into unsigned 8-bit values and float
// scales. The generic driver (driver.hpp) does everything else. The driver
// works on spans of kSpan = 256 values (one K-type block, eight blocks of the
// 32-value types), each four chunks of 64 values. A span's values split into
// groups of kGroup values sharing a scale:
//
//   value[i] = scale[g] * (q[i] - kOffset) + min[g]-term,  g = i / kGroup
//
// where the min term enters the dot as min[g] * amin[g], amin[g] being the
// activation side's group term (Q8_K: d * sum of the group's q; Q8_1: s).
//
// An integer type's definition (kernels/quant/types/) says how it unpacks, in
// a member struct CpuUnpack with kGroup (16 or 32), kOffset, kHasMin and
//   chunk<Ops, C>(span)           the 64 q of chunk C (0..3) of the span whose first block is span[0]
//   scales<Ops>(span, scale, min) the span's group scales and, when kHasMin, mins, as 16 float
//                                 lanes (min lanes past the span's groups 0; scale lanes past them
//                                 are never read)
// and optionally scales_rows<Ops, R>(spans, scale, min), the same of R rows at once.
// Ops is UnpackOps<Arch>: the arch's byte operations (chunk_ops.hpp) and the
// building blocks below, which several types share. Types whose blocks are
// single floats (F32, F16, BF16) need no CpuUnpack: ChunkOps::widen reads them.
// Types with neither (the activation formats Q8_1, Q8_K) have no CPU matmul.
//
// Everything here has internal linkage: a portable build compiles this header
// once per arch with different flags, and those copies must not be merged.
// (The definitions' CpuUnpack members are instantiated with the internal
// UnpackOps<Arch>, so their copies are not merged either.)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "kernels/cpu/matmul/chunk_ops.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

inline constexpr int64_t kSpan = 256;
inline constexpr int64_t kFloatSpan = 64;  // the float types' span: four chunks of 16

template <class Arch>
struct UnpackOps : ChunkOps<Arch> {
    using Base = ChunkOps<Arch>;
    using typename Base::Acc;
    using typename Base::Bytes;

    // 1 in the even lanes, 1/16 in the odd ones.
    alignas(64) static constexpr std::array<float, 16> kOddSixteenth = [] {
        std::array<float, 16> t{};
        for (size_t l = 0; l < 16; ++l) t[l] = l % 2 ? 1.0f / 16 : 1.0f;
        return t;
    }();

    static uint64_t le32(const uint8_t* p) {
        return uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
    }

    // The fp16 field at byte Offset of the 8 blocks of a 32-value type's span.
    template <size_t Offset, class Block>
    [[gnu::always_inline]] static Acc span_halves(const Block* span) {
        constexpr int kStride = int(sizeof(Block)), kReadable = 8 * kStride - int(Offset);
        return Base::template halves<kStride, kReadable>(reinterpret_cast<const uint8_t*>(span) + Offset);
    }

    // Lane 4j + e: groups[(64e + 16j) / G], the scale of quarter j of chunk e
    // of a span, for ChunkOps::spread<C> (G >= 16: a quarter, 16 values, lies in one group).
    template <int G>
    static Acc chunk_lanes(const Acc& groups) {
        static_assert(G % 16 == 0);
        static constexpr std::array<int32_t, 16> kIndex = [] {
            std::array<int32_t, 16> idx{};
            for (int l = 0; l < 16; ++l) idx[size_t(l)] = (64 * (l % 4) + 16 * (l / 4)) / G;
            return idx;
        }();
        return Base::template permute<kIndex>(groups);
    }

    // Every lane v[L] (packed_gemm.hpp's dequantize_span).
    template <int L>
    static Acc broadcast(const Acc& v) {
        static constexpr std::array<int32_t, 16> kIndex = [] {
            std::array<int32_t, 16> idx{};
            idx.fill(L);
            return idx;
        }();
        return Base::template permute<kIndex>(v);
    }

    // The 32-value types' chunk C: blocks 2C and 2C + 1, 16 nibble bytes each (values 0..15 low, 16..31 high).
    template <int C, class Block>
    static Bytes nibble_chunk(const Block* span) {
        return Base::nibbles_pair(span[2 * C].qs, span[2 * C + 1].qs);
    }
    // Q5_0 / Q5_1: bit j of the little-endian qh is bit 4 of value j.
    template <int C, class Block>
    static Bytes five_bit_chunk(const Block* span) {
        return Base::set_where(nibble_chunk<C>(span), le32(span[2 * C].qh) | le32(span[2 * C + 1].qh) << 32, 16);
    }

    // Each 128 values use 32 bytes of qs; value 32k + l of them has its two
    // bits at bits 2k of byte l (Q2_K, Q3_K's low bits).
    template <int C>
    static Bytes crumb_chunk(const uint8_t* qs) {
        return Base::template fields<4 * (C % 2), 4 * (C % 2) + 2>(qs + 32 * (C / 2), 3);
    }
    // Q3_K / Q5_K: value i's extra bit is bit i / 32 of bits[i % 32], moved to bit S.
    template <int C, int S>
    static Bytes high_bit_chunk(const uint8_t* bits) {
        return Base::template shl<S>(Base::template fields<2 * C, 2 * C + 1>(bits, 1));
    }

    // Q4_K / Q5_K: the scales and mins of R rows' spans (blocks), see ChunkOps::k_scales_mins;
    // the scales times `odd` in the odd groups.
    template <int R, class Block>
    [[gnu::always_inline]] static void k_scales_mins_rows(const Block* const* b, Acc* scale, Acc* min,
                                                          const float* odd = nullptr) {
        static_assert(offsetof(Block, d) == 0 && offsetof(Block, dmin) == 2 && offsetof(Block, scales) == 4);
        const uint8_t* p[R];
        for (int r = 0; r < R; ++r) p[r] = reinterpret_cast<const uint8_t*>(b[r]);
        Acc both[R];
        Base::template k_scales_mins<R>(p, both);
        for (int r = 0; r < R; ++r) {
            scale[r] = odd ? Base::mul(both[r], Base::load(odd)) : both[r];
            min[r] = Base::high8(both[r]);
        }
    }
};

template <class T>
struct Unpack;  // no CPU matmul

// Blocks of one float (F32, F16, BF16): widened by the arch's ChunkOps.
template <class T>
    requires(T::block_elems == 1)
struct Unpack<T> {
    static constexpr bool kInt = false;
};

template <class T>
    requires requires { typename T::CpuUnpack; }
struct Unpack<T> : T::CpuUnpack {
    static constexpr bool kInt = true;
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
