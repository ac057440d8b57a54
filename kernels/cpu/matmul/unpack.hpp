// What each weight type contributes to the CPU matmul: the unpacking of one
// block into unsigned 8-bit values and float scales. The generic driver
// (driver.hpp) does everything else. A block of block_elems values splits into
// groups of kGroup values sharing a scale, and
//
//   value[i] = scale[g] * (q[i] - kOffset) + min[g]-term,  g = i / kGroup
//
// where the min term enters the dot as min[g] * amin[g], amin[g] being the
// activation side's group term (Q8_K: d * sum of the group's q; Q8_1: s).
// Loops are written per layout so that the compiler vectorizes them.
//
// Everything here has internal linkage: a portable build compiles this header
// once per arch with different flags, and those copies must not be merged.
#pragma once

#include <cstdint>

#include "kernels/quant/half.hpp"
#include "kernels/quant/kquant_common.hpp"
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

// Weight types whose values are floats: F32, F16, BF16 (widened by the arch's
// ChunkOps, see chunk_ops.hpp).
template <class T>
struct FloatWeights {
    static constexpr bool kInt = false;
};

// Integer types: unpack<Ops>(b, q, scale, min) writes block_elems q, the
// block_elems / kGroup scales and, when kHasMin, as many mins (Ops::half
// converts fp16 with the arch's instruction; Ops::split_nibbles(src, dst, n)
// writes the low nibbles of n bytes, then their high nibbles: the nibble
// layout of Q4_0, Q4_1, IQ4_NL, IQ4_XS (n = 16) and Q4_K, Q5_K (n = 32)).
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

// Q5_0 / Q5_1: the nibbles plus bit j of the little-endian qh as bit 4.
inline void add_fifth_bits(const uint8_t* __restrict qh_bytes, uint8_t* __restrict q) {
    const uint32_t qh = uint32_t(qh_bytes[0]) | uint32_t(qh_bytes[1]) << 8 | uint32_t(qh_bytes[2]) << 16 |
                        uint32_t(qh_bytes[3]) << 24;
    for (int j = 0; j < 32; ++j) q[j] |= uint8_t(((qh >> j) & 1u) << 4);
}

template <>
struct Unpack<Q4_0> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 8;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const Q4_0::Block& b, uint8_t* q, float* scale, float*) {
        Ops::split_nibbles(b.qs, q, 16);
        scale[0] = Ops::half(b.d);
    }
};

template <>
struct Unpack<Q4_1> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops>
    static void unpack(const Q4_1::Block& b, uint8_t* q, float* scale, float* min) {
        Ops::split_nibbles(b.qs, q, 16);
        scale[0] = Ops::half(b.d);
        min[0] = Ops::half(b.m);
    }
};

template <>
struct Unpack<Q5_0> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 16;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const Q5_0::Block& b, uint8_t* q, float* scale, float*) {
        Ops::split_nibbles(b.qs, q, 16);
        add_fifth_bits(b.qh, q);
        scale[0] = Ops::half(b.d);
    }
};

template <>
struct Unpack<Q5_1> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops>
    static void unpack(const Q5_1::Block& b, uint8_t* q, float* scale, float* min) {
        Ops::split_nibbles(b.qs, q, 16);
        add_fifth_bits(b.qh, q);
        scale[0] = Ops::half(b.d);
        min[0] = Ops::half(b.m);
    }
};

template <>
struct Unpack<Q8_0> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const Q8_0::Block& b, uint8_t* q, float* scale, float*) {
        for (int j = 0; j < 32; ++j) q[j] = uint8_t(b.qs[j] ^ 0x80);  // q + 128
        scale[0] = Ops::half(b.d);
    }
};

template <>
struct Unpack<IQ4_NL> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const IQ4_NL::Block& b, uint8_t* q, float* scale, float*) {
        Ops::split_nibbles(b.qs, q, 16);
        for (int j = 0; j < 32; ++j) q[j] = uint8_t(IQ4_NL::kValues[q[j]] + 128);
        scale[0] = Ops::half(b.d);
    }
};

// Q2_K / Q3_K: each 128 values use 32 bytes of qs; value 32k + l of them has
// its two bits at bits 2k of byte l.
inline void split_crumbs(const uint8_t* __restrict qs, uint8_t* __restrict q) {
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < 4; ++k)
            for (int l = 0; l < 32; ++l) q[128 * h + 32 * k + l] = (qs[32 * h + l] >> (2 * k)) & 3;
}

template <>
struct Unpack<Q2_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops>
    static void unpack(const Q2_K::Block& b, uint8_t* q, float* scale, float* min) {
        split_crumbs(b.qs, q);
        const float d = Ops::half(b.d), dmin = Ops::half(b.dmin);
        for (int g = 0; g < 16; ++g) {
            scale[g] = d * float(b.scales[g] & 0xF);
            min[g] = -dmin * float(b.scales[g] >> 4);
        }
    }
};

template <>
struct Unpack<Q3_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 4;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const Q3_K::Block& b, uint8_t* q, float* scale, float*) {
        split_crumbs(b.qs, q);
        // The high bit of value i is bit i/32 of hmask[i%32]; stored q + 4 = low + 4*high.
        for (int i = 0; i < 256; ++i) q[i] |= uint8_t(((b.hmask[i % 32] >> (i / 32)) & 1) << 2);
        const float d = Ops::half(b.d);
        for (int g = 0; g < 16; ++g) scale[g] = d * float(Q3_K::scale(b.scales, g));
    }
};

template <class Ops, class Block>
void unpack_scale_min8(const Block& b, float* scale, float* min) {
    const float d = Ops::half(b.d), dmin = Ops::half(b.dmin);
    for (int g = 0; g < 8; ++g) {
        const kquant::ScaleMin sm = kquant::unpack_scale_min(b.scales, g);
        scale[g] = d * float(sm.scale);
        min[g] = -dmin * float(sm.min);
    }
}

template <>
struct Unpack<Q4_K> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops>
    static void unpack(const Q4_K::Block& b, uint8_t* q, float* scale, float* min) {
        for (int c = 0; c < 4; ++c) Ops::split_nibbles(b.qs + 32 * c, q + 64 * c, 32);  // 64 values per 32 bytes
        unpack_scale_min8<Ops>(b, scale, min);
    }
};

template <>
struct Unpack<Q5_K> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 0;
    static constexpr bool kHasMin = true;
    template <class Ops>
    static void unpack(const Q5_K::Block& b, uint8_t* q, float* scale, float* min) {
        for (int c = 0; c < 4; ++c) Ops::split_nibbles(b.qs + 32 * c, q + 64 * c, 32);  // 64 values per 32 bytes
        // The high bit of value i is bit i/32 of qh[i%32].
        for (int i = 0; i < 256; ++i) q[i] |= uint8_t(((b.qh[i % 32] >> (i / 32)) & 1) << 4);
        unpack_scale_min8<Ops>(b, scale, min);
    }
};

template <>
struct Unpack<Q6_K> : IntWeights {
    static constexpr int kGroup = 16, kOffset = 32;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const Q6_K::Block& b, uint8_t* q, float* scale, float*) {
        // Each 128 values use 64 bytes of ql and 32 of qh: value 32k + l has its
        // low nibble in ql[l + 32*(k%2)] (the high one for k >= 2), its top bits
        // at bits 2k of qh[l].
        for (int h = 0; h < 2; ++h) {
            const uint8_t* ql = b.ql + 64 * h;
            const uint8_t* qh = b.qh + 32 * h;
            uint8_t* out = q + 128 * h;
            for (int l = 0; l < 32; ++l) {
                out[l] = uint8_t((ql[l] & 0xF) | ((qh[l] & 3) << 4));
                out[32 + l] = uint8_t((ql[32 + l] & 0xF) | (((qh[l] >> 2) & 3) << 4));
                out[64 + l] = uint8_t((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4));
                out[96 + l] = uint8_t((ql[32 + l] >> 4) | (((qh[l] >> 6) & 3) << 4));
            }
        }
        const float d = Ops::half(b.d);
        for (int g = 0; g < 16; ++g) scale[g] = d * float(b.scales[g]);
    }
};

template <>
struct Unpack<IQ4_XS> : IntWeights {
    static constexpr int kGroup = 32, kOffset = 128;
    static constexpr bool kHasMin = false;
    template <class Ops>
    static void unpack(const IQ4_XS::Block& b, uint8_t* q, float* scale, float*) {
        for (int g = 0; g < 8; ++g) {
            Ops::split_nibbles(b.qs + 16 * g, q + 32 * g, 16);
            scale[g] = Ops::half(b.d) * float(IQ4_XS::scale(b, g));
        }
        for (int i = 0; i < 256; ++i) q[i] = uint8_t(IQ4_XS::kLevels[q[i]] + 128);
    }
};

template <class T>
concept HasUnpack = requires { Unpack<T>::kInt; };

}  // namespace
}  // namespace tessera::cpu::matmul_detail
