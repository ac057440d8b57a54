// Q4_K: super-blocks of 256 values in 8 sub-blocks of 32. Each sub-block has a
// 6-bit scale and a 6-bit min, scaled by the fp16 d and dmin of the block;
// value = d*scale*q - dmin*min with 4-bit q.
#pragma once

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct Q4_K {
    static constexpr GgmlType id = GgmlType::Q4_K;
    static constexpr std::string_view name = "Q4_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 14;  // LLAMA_FTYPE_MOSTLY_Q4_K_S
    struct Block {
        uint16_t d;          // fp16 scale of the scales
        uint16_t dmin;       // fp16 scale of the mins
        uint8_t scales[12];  // 8 scales and 8 mins, see kquant::unpack_scale_min
        uint8_t qs[128];     // each 64 values: 32 bytes, low nibbles first, then high nibbles
    };
    using DotType = Q8_K;

    static constexpr int q_byte(int i) { return 32 * (i / 64) + i % 32; }
    static constexpr int q_shift(int i) { return 4 * (i % 64 / 32); }
    static int q(const Block& b, int i) { return (b.qs[q_byte(i)] >> q_shift(i)) & 0xF; }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d), dmin = fp16_to_fp32(b.dmin);
        for (int j = 0; j < 8; ++j) {
            const auto [sc, m] = kquant::unpack_scale_min(b.scales, j);
            const float scale = d * float(sc), min = dmin * float(m);
            for (int i = 32 * j; i < 32 * j + 32; ++i) out[i] = scale * float(q(b, i)) - min;
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_affine_block<32>(in, 15, 63);
        b.d = fp32_to_fp16(quant.d);
        b.dmin = fp32_to_fp16(quant.dmin);
        std::array<kquant::ScaleMin, 8> scale_mins;
        for (int j = 0; j < 8; ++j) scale_mins[j] = {quant.scales[j], quant.mins[j]};
        kquant::pack_scale_min(scale_mins, b.scales);
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        for (int i = 0; i < 256; ++i) b.qs[q_byte(i)] |= uint8_t(quant.q[i] << q_shift(i));
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        return kquant::dot_scale_min_blocks(w, a, nblocks, [](const Block& b, int i) { return q(b, i); });
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): 64 values per 32
    // bytes, the high nibbles (odd groups) left in place: their q is 16 times
    // the value, their scale a sixteenth (exact: a power of two).
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 0;
        static constexpr bool kHasMin = true;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::nibbles_in_place(span->qs + 32 * C);
        }
        template <class Ops, int R>
        static void scales_rows(const Block* const* b, typename Ops::Acc* scale, typename Ops::Acc* min) {
            Ops::template k_scales_mins_rows<R>(b, scale, min, Ops::kOddSixteenth.data());
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
            scales_rows<Ops, 1>(&span, &scale, &min);
        }
        // The matvec's lane-stable chunks (kernels/cpu/matmul/stable_lanes.hpp):
        // qs's two 64-byte halves interleaved by 64-bit words within 128-bit
        // lanes (chunks 0, 2: the even words, 1, 3: the odd ones), low nibbles
        // in chunks 0 and 1, high nibbles in place in 2 and 3. Byte t of qs
        // holds values 64 (t / 32) + t % 32 (low) and 32 more (high), so each
        // lane keeps one group in chunks 0-1 and another in chunks 2-3. The
        // halves are read 32 bytes at a time: 64-byte reads across cache lines
        // made the matvec from DRAM 25% slower (Zen 5).
        template <class Ops, int C>
        static auto stable_chunk(const Block* span) {
            const auto words = Ops::template interleave64<C % 2>(Ops::pair(span->qs, span->qs + 32),
                                                                 Ops::pair(span->qs + 64, span->qs + 96));
            return Ops::and_(words, C < 2 ? 0x0F : 0xF0);
        }
        static constexpr int stable_value(int C, int p) {
            const int j = p / 8, t = 8 * ((j % 2) * 8 + j / 2 * 2 + C % 2) + p % 8;  // the qs byte
            return 64 * (t / 32) + 32 * (C / 2) + t % 32;
        }
    };
};
static_assert(QuantType<Q4_K> && matches_format<Q4_K>());

}  // namespace tessera
