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
        // chunk C holds 8 values of each of the span's 8 groups, 2 lanes per
        // group, so every chunk has the same lane -> group map and all four
        // add up as integers, scaled once per span. Qs byte 32s + i holds
        // value 64s + i of group 2s (low nibble) and 64s + 32 + i of group
        // 2s + 1 (high nibble, left in place); chunk C takes bytes 8C..8C + 7
        // of each 32, once for each nibble: one lane permute of the two
        // 64-byte halves of qs (read 32 bytes at a time: 64-byte reads across
        // cache lines are slower, docs/measured-choices.md#32-byte-loads-of-quants).
        template <class Ops, int C>
        static auto stable_chunk(const Block* span) {
            const auto qs = Ops::template dwords<kQsLanes[C]>(Ops::pair(span->qs, span->qs + 32),
                                                              Ops::pair(span->qs + 64, span->qs + 96));
            return Ops::template and_lanes<kNibbleMasks>(qs);
        }
        static constexpr int stable_value(int C, int p) {
            const int k = p / 8;  // the qword: group k
            return 64 * (k / 2) + 32 * (k % 2) + 8 * C + p % 8;
        }

    private:
        // Lane 2k + e of chunk C: lane 2C + e of the 32 qs bytes of group k (8 lanes per 32 bytes).
        static constexpr std::array<std::array<int8_t, 16>, 4> kQsLanes = [] {
            std::array<std::array<int8_t, 16>, 4> idx{};
            for (int c = 0; c < 4; ++c)
                for (int l = 0; l < 16; ++l) idx[size_t(c)][size_t(l)] = int8_t(8 * (l / 4) + 2 * c + l % 2);
            return idx;
        }();
        // Even groups' lanes keep the low nibbles, odd groups' the high ones.
        static constexpr std::array<uint32_t, 16> kNibbleMasks = [] {
            std::array<uint32_t, 16> m{};
            for (int l = 0; l < 16; ++l) m[size_t(l)] = (l / 2) % 2 ? 0xF0F0F0F0u : 0x0F0F0F0Fu;
            return m;
        }();
    };
};
static_assert(QuantType<Q4_K> && matches_format<Q4_K>());

}  // namespace tessera
