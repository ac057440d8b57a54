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
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::template span_halves<offsetof(Block, d)>(span);
        }
        // The matvec's lane-stable chunks (kernels/cpu/matmul/stable_lanes.hpp):
        // the qs of blocks 4h .. 4h + 3 gathered one block per 128-bit lane
        // (one word permute of the 128 bytes from byte 16h of the span; qs
        // starts at an even offset in every block), their low nibbles in chunk
        // 2h, their high nibbles in 2h + 1: a lane keeps its block in both.
        template <class Ops, int C>
        static auto stable_chunk(const Block* span) {
            const auto qs = Ops::template words<kQsWords[C / 2]>(reinterpret_cast<const uint8_t*>(span) + 16 * (C / 2));
            if constexpr (C % 2 == 0)
                return Ops::and_(qs, 0x0F);
            else
                return Ops::template bits<4>(qs, 0x0F);
        }
        static constexpr int stable_value(int C, int p) { return 32 * (4 * (C / 2) + p / 16) + 16 * (C % 2) + p % 16; }

    private:
        // Word 8b + j of the gather for blocks 4h .. 4h + 3: word j of block 4h + b's qs.
        static constexpr std::array<std::array<int16_t, 32>, 2> kQsWords = [] {
            std::array<std::array<int16_t, 32>, 2> w{};
            for (int h = 0; h < 2; ++h)
                for (int i = 0; i < 32; ++i)
                    w[size_t(h)][size_t(i)] =
                        int16_t((int(sizeof(Block)) * (4 * h + i / 8) + int(offsetof(Block, qs)) - 16 * h) / 2 + i % 8);
            return w;
        }();
        static_assert(sizeof(Block) == 18 && offsetof(Block, qs) % 2 == 0);
    };
};
static_assert(QuantType<Q4_0> && matches_format<Q4_0>());

}  // namespace tessera
