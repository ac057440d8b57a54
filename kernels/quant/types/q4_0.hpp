// Q4_0: blocks of 32 values, one fp16 scale d and 32 4-bit values q (two per
// byte: value j in the low nibble of qs[j], value j+16 in the high nibble);
// value = d * (q - 8).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_0.hpp"

namespace tessera {

struct Q4_0 {
    static constexpr GgmlType id = GgmlType::Q4_0;
    static constexpr std::string_view name = "Q4_0";
    static constexpr size_t block_elems = 32;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 2;  // LLAMA_FTYPE_MOSTLY_Q4_0
    struct Block {
        uint16_t d;  // fp16 scale
        uint8_t qs[16];
    };
    using DotType = Q8_0;
    // On the GPU (q4_0.glsl): 8 blocks' qs, then their d.
    struct GpuGroups {
        static constexpr uint32_t group_blocks = 8, plane_offset = offsetof(Block, qs), plane_bytes = 16;
    };

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 16; ++j) {
            out[j] = float((b.qs[j] & 0xF) - 8) * d;
            out[j + 16] = float((b.qs[j] >> 4) - 8) * d;
        }
    }

    // ggml's reference quantizer: the value of largest magnitude maps to -8.
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        float max = 0.0f;  // signed value of largest magnitude (first one on ties)
        for (int j = 0; j < 32; ++j) {
            if (std::fabs(in[j]) > amax) {
                amax = std::fabs(in[j]);
                max = in[j];
            }
        }
        const float d = max / -8.0f;
        // 0 when d is 0 or so small (float-subnormal inputs) that 1/d overflows.
        const float inv_d = std::isfinite(1.0f / d) ? 1.0f / d : 0.0f;
        b.d = fp32_to_fp16(d);
        for (int j = 0; j < 16; ++j) {
            const int lo = std::min(15, int(int8_t(in[j] * inv_d + 8.5f)));
            const int hi = std::min(15, int(int8_t(in[j + 16] * inv_d + 8.5f)));
            b.qs[j] = uint8_t(lo | (hi << 4));
        }
    }

    static float dot(const Block* w, const Q8_0::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int32_t isum = 0;
            for (int j = 0; j < 16; ++j) {
                isum += ((w[i].qs[j] & 0xF) - 8) * int32_t(a[i].qs[j]);
                isum += ((w[i].qs[j] >> 4) - 8) * int32_t(a[i].qs[j + 16]);
            }
            sum += float(isum) * (fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d));
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): a chunk is two blocks,
    // each its low nibbles then its high nibbles, in groups of 32 of scale d.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 8;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::template nibble_chunk<C>(span);
        }
        // The span's 8 d, gathered from the same two 64-byte windows (at 0 and
        // 72) that stable chunks 0 and 1 read, so the matvec loads them once.
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            const auto* p = reinterpret_cast<const uint8_t*>(span);
            scale = Ops::first_halves(Ops::template words<kDWords>(p, p + kSecondHalf));
        }
        // The matvec's lane-stable chunks (kernels/cpu/matmul/stable_lanes.hpp):
        // chunk C holds 8 values of each of the span's 8 blocks, 2 lanes per
        // block, so every chunk has the same lane -> block map and all four
        // add up as integers, scaled once per span. Chunks 0 and 1: the low
        // and high nibbles of qs bytes 0..7; chunks 2 and 3: of bytes 8..15.
        // Blocks 0..3 are gathered from the 64 bytes at 8h, blocks 4..7 from
        // those at 72 + 8h (one word permute; qs starts at an even offset).
        template <class Ops, int C>
        static auto stable_chunk(const Block* span) {
            constexpr int h = C / 2;
            const auto* p = reinterpret_cast<const uint8_t*>(span) + 8 * h;
            const auto qs = Ops::template words<kQsWords>(p, p + kSecondHalf);
            if constexpr (C % 2 == 0)
                return Ops::and_(qs, 0x0F);
            else
                return Ops::template bits<4>(qs, 0x0F);
        }
        static constexpr int stable_value(int C, int p) { return 32 * (p / 8) + 16 * (C % 2) + 8 * (C / 2) + p % 8; }

    private:
        static constexpr int kSecondHalf = 4 * int(sizeof(Block));  // blocks 4..7 start here
        // Word i of a gather from the windows at byte 8h and kSecondHalf + 8h:
        // word i % 4 of qs byte 8h of block i / 4 (the same index for both h).
        static constexpr std::array<int16_t, 32> kQsWords = [] {
            std::array<int16_t, 32> w{};
            for (int i = 0; i < 32; ++i) {
                const int b = i / 4;
                w[size_t(i)] = int16_t((int(sizeof(Block)) * (b % 4) + int(offsetof(Block, qs))) / 2 + i % 4 + 32 * (b / 4));
            }
            return w;
        }();
        // Words 0..7: the d of blocks 0..7 from the windows at 0 and kSecondHalf.
        static constexpr std::array<int16_t, 32> kDWords = [] {
            std::array<int16_t, 32> w{};
            for (int b = 0; b < 8; ++b)
                w[size_t(b)] = int16_t((int(sizeof(Block)) * (b % 4) + int(offsetof(Block, d))) / 2 + 32 * (b / 4));
            return w;
        }();
        static_assert(sizeof(Block) == 18 && offsetof(Block, qs) % 2 == 0 && offsetof(Block, d) % 2 == 0);
        static_assert(3 * sizeof(Block) + offsetof(Block, qs) + 16 <= 8 + 64);  // block 3's qs 8..15 in the first window
    };
};
static_assert(QuantType<Q4_0> && matches_format<Q4_0>());

}  // namespace tessera
