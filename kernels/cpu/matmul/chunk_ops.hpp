// The arch-specific operations of the matmul driver, on three vector types:
//   Bytes  64 unsigned 8-bit weight values (one chunk)
//   Ints   16 int32 lanes, lane l the sum over values 4l..4l+3 of a chunk
//   Acc    16 floats
// Unpacking (what the types' CpuUnpack members compose, see unpack.hpp):
//   pair(lo, hi)            32 bytes at lo, then 32 at hi
//   nibbles_pair(a, b)      16 bytes a -> their low nibbles, their high nibbles; then the same of b
//   fields<S0, S1>(p, m)    32 bytes p -> (p >> S0) & m, then (p >> S1) & m
//   nibbles_in_place(p)     32 bytes p -> p & 0x0F, then p & 0xF0 (the high nibbles times 16, no shift)
//   field<S>(p, m)          64 bytes p -> (p >> S) & m
//   bits<S>(q, m)           (q >> S) & m
//   words<Index>(a, b)      16-bit word i: word Index[i] of the 64 bytes at a (Index[i] < 32), else
//                           word Index[i] - 32 of the 64 bytes at b
//   dwords<Index>(a, b)     32-bit lane i: lane Index[i] of a (Index[i] < 16), else lane Index[i] - 16 of b
//   and_lanes<Mask>(q)      32-bit lane i: q & Mask[i]
//   shl<S>(q)               q << S (every value < 256 >> S)
//   set_where(q, bits, v)   q[i] + v where bit i of bits is set (the bit v of q[i] is clear)
//   lookup(q, table)        table[q[i]] (q[i] < 16)
// Scales:
//   halves<Stride, Readable>(p)  the 8 fp16 at p + Stride * i -> lanes 0..7 (lanes 8..15 zero);
//                                Readable (>= 128) bytes from p may be read
//   first_halves(w)              words 0..7 of w as fp16 -> lanes 0..7 (lanes 8..15 zero)
//   from_u8 / from_i8(lo, hi)    16 unsigned / signed bytes (two words, lo first) -> floats
//   k_scales_mins<R>(blocks, out)  R blocks of Q4_K / Q5_K (fp16 d, fp16 dmin, then 8 6-bit scales and
//                                8 mins packed in 12 bytes, kquant::unpack_scale_min) -> out[r]: lanes 0..7
//                                the scales times d, lanes 8..15 the mins times -dmin
//   high8(v)                     lanes 8..15 of v in lanes 0..7, lanes 8..15 zero
// Arithmetic:
//   dot(bias, q, a)         lane l: bias[l] + sum_{e<4} q[4l+e] * a[4l+e] (a signed 8-bit)
//   dot16(bias, q, hi, lo)  the same with a = 256 * hi + lo (16-bit activations as two signed bytes)
//   dot_acc(acc, q, a)      lane l: acc[l] + sum_{e<4} q[4l+e] * a[4l+e]; zero_ints() the zero start
//   shl8_add(hi, lo)        lane l: (hi[l] << 8) + lo[l] (q16's two byte dots, stable_lanes.hpp)
//   permute<Index>(v)       lane l: v[Index[l]]
//   spread<C>(lanes)        lane 4j + e: lanes[4j + C], the scale of lane 4j + e of chunk C (G >= 16:
//                           a quarter of a chunk, 16 values, lies in one group), from the span's
//                           scales arranged by UnpackOps::chunk_lanes
//   fma_int(i, s, acc)      acc + float(i) * s
// Dequantizing (packed_gemm.hpp):
//   values<Q>(q, s, b)      lane l: float(q[16Q + l]) * s[l] + b[l], one rounding
//   transpose(in, out)      out[i][j] = in[j][i] for 16 x 16 floats
// The primary template is plain C++ (the compiler vectorizes what it can);
// AVX-512 has a specialization (chunk_ops_avx512.hpp).
// Internal linkage: see unpack.hpp.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/quant/half.hpp"
#include "kernels/quant/types/bf16.hpp"
#include "kernels/quant/types/f16.hpp"
#include "kernels/quant/types/f32.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

template <class Arch>
struct ChunkOps {
    struct Bytes {
        uint8_t v[64];
    };
    struct Ints {
        int32_t v[16];
    };
    struct Acc {
        float v[16];
    };

    static Acc zero() { return {}; }
    static Acc set1(float v) {
        Acc r;
        for (float& x : r.v) x = v;
        return r;
    }
    static Acc load(const float* p) {
        Acc r;
        std::memcpy(r.v, p, sizeof r.v);
        return r;
    }
    static void store(Acc a, float* p) { std::memcpy(p, a.v, sizeof a.v); }
    static Acc mul(Acc a, Acc b) {
        for (int l = 0; l < 16; ++l) a.v[l] *= b.v[l];
        return a;
    }
    static Acc fma(Acc a, Acc b, Acc acc) {
        for (int l = 0; l < 16; ++l) acc.v[l] += a.v[l] * b.v[l];
        return acc;
    }
    static float sum(const Acc& acc) {
        float s = 0.0f;
        for (float v : acc.v) s += v;
        return s;
    }

    static Bytes load_bytes(const uint8_t* p) {
        Bytes r;
        std::memcpy(r.v, p, 64);
        return r;
    }
    static void store_bytes(const Bytes& q, uint8_t* p) { std::memcpy(p, q.v, 64); }
    static Bytes pair(const void* lo, const void* hi) {
        Bytes r;
        std::memcpy(r.v, lo, 32);
        std::memcpy(r.v + 32, hi, 32);
        return r;
    }
    static Bytes nibbles_pair(const uint8_t* a, const uint8_t* b) {
        Bytes r;
        for (int j = 0; j < 16; ++j) {
            r.v[j] = a[j] & 0xF;
            r.v[16 + j] = a[j] >> 4;
            r.v[32 + j] = b[j] & 0xF;
            r.v[48 + j] = b[j] >> 4;
        }
        return r;
    }
    template <int S0, int S1>
    static Bytes fields(const uint8_t* p, uint8_t m) {
        Bytes r;
        for (int j = 0; j < 32; ++j) {
            r.v[j] = (p[j] >> S0) & m;
            r.v[32 + j] = (p[j] >> S1) & m;
        }
        return r;
    }
    static Bytes nibbles_in_place(const uint8_t* p) {
        Bytes r;
        for (int j = 0; j < 32; ++j) {
            r.v[j] = p[j] & 0x0F;
            r.v[32 + j] = p[j] & 0xF0;
        }
        return r;
    }
    template <int S>
    static Bytes field(const uint8_t* p, uint8_t m) {
        Bytes r;
        for (int j = 0; j < 64; ++j) r.v[j] = (p[j] >> S) & m;
        return r;
    }
    template <int S>
    static Bytes bits(Bytes q, uint8_t m) {
        for (auto& v : q.v) v = uint8_t(v >> S) & m;
        return q;
    }
    template <std::array<int16_t, 32> Index>
    static Bytes words(const uint8_t* a, const uint8_t* b) {
        Bytes r;
        for (size_t i = 0; i < 32; ++i)
            std::memcpy(r.v + 2 * i, Index[i] < 32 ? a + 2 * Index[i] : b + 2 * (Index[i] - 32), 2);
        return r;
    }
    template <std::array<int8_t, 16> Index>
    static Bytes dwords(const Bytes& a, const Bytes& b) {
        Bytes r;
        for (size_t i = 0; i < 16; ++i)
            std::memcpy(r.v + 4 * i, Index[i] < 16 ? a.v + 4 * Index[i] : b.v + 4 * (Index[i] - 16), 4);
        return r;
    }
    template <std::array<uint32_t, 16> Mask>
    static Bytes and_lanes(Bytes q) {
        for (size_t i = 0; i < 64; ++i) q.v[i] &= uint8_t(Mask[i / 4] >> (8 * (i % 4)));
        return q;
    }
    template <int S>
    static Bytes shl(Bytes q) {
        for (auto& v : q.v) v = uint8_t(v << S);
        return q;
    }
    static Bytes or_(Bytes a, const Bytes& b) {
        for (int j = 0; j < 64; ++j) a.v[j] |= b.v[j];
        return a;
    }
    static Bytes xor_(Bytes q, uint8_t m) {
        for (auto& v : q.v) v ^= m;
        return q;
    }
    static Bytes and_(Bytes q, uint8_t m) {
        for (auto& v : q.v) v &= m;
        return q;
    }
    static Bytes set_where(Bytes q, uint64_t bits, uint8_t v) {
        for (int j = 0; j < 64; ++j) q.v[j] |= ((bits >> j) & 1) ? v : 0;
        return q;
    }
    static Bytes lookup(Bytes q, const uint8_t* table) {
        for (auto& v : q.v) v = table[v];
        return q;
    }

    template <int Stride, int Readable>
    static Acc halves(const uint8_t* p) {
        Acc r{};
        for (int l = 0; l < 8; ++l) {
            uint16_t h;
            std::memcpy(&h, p + Stride * l, 2);
            r.v[l] = fp16_to_fp32(h);
        }
        return r;
    }
    static Acc first_halves(const Bytes& w) {
        Acc r{};
        for (int l = 0; l < 8; ++l) {
            uint16_t h;
            std::memcpy(&h, w.v + 2 * l, 2);
            r.v[l] = fp16_to_fp32(h);
        }
        return r;
    }
    static Acc high8(const Acc& v) {
        Acc r{};
        for (int l = 0; l < 8; ++l) r.v[l] = v.v[l + 8];
        return r;
    }
    static Acc from_u8(uint64_t lo, uint64_t hi) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = float(uint8_t((l < 8 ? lo : hi) >> (8 * (l % 8))));
        return r;
    }
    static Acc from_i8(uint64_t lo, uint64_t hi) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = float(int8_t((l < 8 ? lo : hi) >> (8 * (l % 8))));
        return r;
    }
    template <int R>
    static void k_scales_mins(const uint8_t* const* blocks, Acc* out) {
        for (int r = 0; r < R; ++r) {
            uint16_t dd[2];
            std::memcpy(dd, blocks[r], 4);
            const float d = fp16_to_fp32(dd[0]), dmin = -fp16_to_fp32(dd[1]);
            const uint8_t* p = blocks[r] + 4;
            for (int j = 0; j < 4; ++j) {
                out[r].v[j] = float(p[j] & 63) * d;
                out[r].v[4 + j] = float((p[j + 8] & 0xF) | (p[j] >> 6) << 4) * d;
                out[r].v[8 + j] = float(p[j + 4] & 63) * dmin;
                out[r].v[12 + j] = float((p[j + 8] >> 4) | (p[j + 4] >> 6) << 4) * dmin;
            }
        }
    }

    static Ints dot(const int32_t* bias, const Bytes& q, const int8_t* a) {
        Ints r;
        for (int l = 0; l < 16; ++l) {
            int32_t s = bias[l];
            for (int e = 4 * l; e < 4 * l + 4; ++e) s += int32_t(q.v[e]) * int32_t(a[e]);
            r.v[l] = s;
        }
        return r;
    }
    static Ints dot16(const int32_t* bias, const Bytes& q, const int8_t* hi, const int8_t* lo) {
        Ints r;
        for (int l = 0; l < 16; ++l) {
            int32_t s = bias[l];
            for (int e = 4 * l; e < 4 * l + 4; ++e) s += int32_t(q.v[e]) * (256 * int32_t(hi[e]) + int32_t(lo[e]));
            r.v[l] = s;
        }
        return r;
    }
    static Ints zero_ints() { return {}; }
    static Ints dot_acc(Ints acc, const Bytes& q, const int8_t* a) {
        for (int e = 0; e < 64; ++e) acc.v[e / 4] += int32_t(q.v[e]) * int32_t(a[e]);
        return acc;
    }
    static Ints shl8_add(Ints hi, const Ints& lo) {
        for (int l = 0; l < 16; ++l) hi.v[l] = hi.v[l] * 256 + lo.v[l];
        return hi;
    }
    template <std::array<int32_t, 16> Index>
    static Acc permute(const Acc& v) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = v.v[Index[size_t(l)]];
        return r;
    }
    template <int C>
    static Acc spread(const Acc& lanes) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = lanes.v[l / 4 * 4 + C];
        return r;
    }
    static Acc fma_int(const Ints& i, const Acc& s, Acc acc) {
        for (int l = 0; l < 16; ++l) acc.v[l] += float(i.v[l]) * s.v[l];
        return acc;
    }
    template <int Q>
    static Acc values(const Bytes& q, const Acc& s, const Acc& b) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = std::fma(float(q.v[16 * Q + l]), s.v[l], b.v[l]);
        return r;
    }
    static void transpose(const Acc* in, Acc* out) {
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) out[i].v[j] = in[j].v[i];
    }

    static float half(uint16_t h) { return fp16_to_fp32(h); }
    // 16 weights of a float type as floats.
    static Acc widen(const F32::Block* w) { return load(reinterpret_cast<const float*>(w)); }
    static Acc widen(const F16::Block* w) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = fp16_to_fp32(w[l].bits);
        return r;
    }
    static Acc widen(const BF16::Block* w) {
        Acc r;
        for (int l = 0; l < 16; ++l) r.v[l] = bf16_to_fp32(w[l].bits);
        return r;
    }
};

}  // namespace
}  // namespace tessera::cpu::matmul_detail

#include "kernels/cpu/matmul/chunk_ops_avx512.hpp"
