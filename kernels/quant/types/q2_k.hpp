// Q2_K: super-blocks of 256 values in 16 sub-blocks of 16. Each sub-block has a
// 4-bit scale and a 4-bit min, scaled by the fp16 d and dmin of the block;
// value = d*scale*q - dmin*min with 2-bit q.
#pragma once

#include <cstring>

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct Q2_K {
    static constexpr GgmlType id = GgmlType::Q2_K;
    static constexpr std::string_view name = "Q2_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 10;  // LLAMA_FTYPE_MOSTLY_Q2_K
    struct Block {
        uint8_t scales[16];  // per sub-block: scale in the low nibble, min in the high nibble
        uint8_t qs[64];      // 2-bit values, see q_byte / q_shift
        uint16_t d;          // fp16 scale of the scales
        uint16_t dmin;       // fp16 scale of the mins
    };
    using DotType = Q8_K;

    // Value i is in bits q_shift(i)..+1 of qs[q_byte(i)]: each 128 values use 32
    // bytes, and each group of 32 of them a further bit pair of those bytes.
    static constexpr int q_byte(int i) { return 32 * (i / 128) + i % 32; }
    static constexpr int q_shift(int i) { return 2 * (i % 128 / 32); }
    static int q(const Block& b, int i) { return (b.qs[q_byte(i)] >> q_shift(i)) & 3; }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d), dmin = fp16_to_fp32(b.dmin);
        for (int j = 0; j < 16; ++j) {
            const float scale = d * float(b.scales[j] & 0xF), min = dmin * float(b.scales[j] >> 4);
            for (int i = 16 * j; i < 16 * j + 16; ++i) out[i] = scale * float(q(b, i)) - min;
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_affine_block<16>(in, 3, 15);
        b.d = fp32_to_fp16(quant.d);
        b.dmin = fp32_to_fp16(quant.dmin);
        for (int j = 0; j < 16; ++j) b.scales[j] = uint8_t(quant.scales[j] | (quant.mins[j] << 4));
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        for (int i = 0; i < 256; ++i) b.qs[q_byte(i)] |= uint8_t(quant.q[i] << q_shift(i));
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t n = 0; n < nblocks; ++n) {
            const Block& b = w[n];
            int32_t scaled = 0, mins = 0;
            for (int j = 0; j < 16; ++j) {
                int32_t isum = 0;
                for (int i = 16 * j; i < 16 * j + 16; ++i) isum += q(b, i) * int32_t(a[n].qs[i]);
                scaled += (b.scales[j] & 0xF) * isum;
                // The min term needs only the activations' sums over the sub-block.
                mins += (b.scales[j] >> 4) * int32_t(a[n].bsums[j]);
            }
            sum += (a[n].d * fp16_to_fp32(b.d)) * float(scaled) - (a[n].d * fp16_to_fp32(b.dmin)) * float(mins);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp).
    struct CpuUnpack {
        static constexpr int kGroup = 16, kOffset = 0;
        static constexpr bool kHasMin = true;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::template crumb_chunk<C>(span->qs);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
            uint64_t w[2];  // per group: scale in the low nibble, min in the high one
            std::memcpy(w, span->scales, 16);
            constexpr uint64_t kLow = 0x0F0F0F0F0F0F0F0Full;
            scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_u8(w[0] & kLow, w[1] & kLow));
            min = Ops::mul(Ops::set1(-Ops::half(span->dmin)), Ops::from_u8(w[0] >> 4 & kLow, w[1] >> 4 & kLow));
        }
    };
};
static_assert(QuantType<Q2_K> && matches_format<Q2_K>());

}  // namespace tessera
