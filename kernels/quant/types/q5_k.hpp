// Q5_K: super-blocks of 256 values in 8 sub-blocks of 32, scales and mins as
// Q4_K; value = d*scale*q - dmin*min with 5-bit q (Q4_K's nibble plus a high bit).
#pragma once

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct Q5_K {
    static constexpr GgmlType id = GgmlType::Q5_K;
    static constexpr std::string_view name = "Q5_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 16;  // LLAMA_FTYPE_MOSTLY_Q5_K_S
    struct Block {
        uint16_t d;          // fp16 scale of the scales
        uint16_t dmin;       // fp16 scale of the mins
        uint8_t scales[12];  // 8 scales and 8 mins, see kquant::unpack_scale_min
        uint8_t qh[32];      // high bits: value i is bit i/32 of qh[i%32]
        uint8_t qs[128];     // low 4 bits, arranged as Q4_K's qs
    };
    using DotType = Q8_K;

    static constexpr int q_byte(int i) { return 32 * (i / 64) + i % 32; }
    static constexpr int q_shift(int i) { return 4 * (i % 64 / 32); }
    static int q(const Block& b, int i) {
        return ((b.qs[q_byte(i)] >> q_shift(i)) & 0xF) | (((b.qh[i % 32] >> (i / 32)) & 1) << 4);
    }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d), dmin = fp16_to_fp32(b.dmin);
        for (int j = 0; j < 8; ++j) {
            const auto [sc, m] = kquant::unpack_scale_min(b.scales, j);
            const float scale = d * float(sc), min = dmin * float(m);
            for (int i = 32 * j; i < 32 * j + 32; ++i) out[i] = scale * float(q(b, i)) - min;
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_affine_block<32>(in, 31, 63);
        b.d = fp32_to_fp16(quant.d);
        b.dmin = fp32_to_fp16(quant.dmin);
        std::array<kquant::ScaleMin, 8> scale_mins;
        for (int j = 0; j < 8; ++j) scale_mins[j] = {quant.scales[j], quant.mins[j]};
        kquant::pack_scale_min(scale_mins, b.scales);
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        std::fill(std::begin(b.qh), std::end(b.qh), uint8_t(0));
        for (int i = 0; i < 256; ++i) {
            b.qs[q_byte(i)] |= uint8_t((quant.q[i] & 0xF) << q_shift(i));
            b.qh[i % 32] |= uint8_t((quant.q[i] >> 4) << (i / 32));
        }
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        return kquant::dot_scale_min_blocks(w, a, nblocks, [](const Block& b, int i) { return q(b, i); });
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp).
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 0;
        static constexpr bool kHasMin = true;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::or_(Ops::template fields<0, 4>(span->qs + 32 * C, 0xF),
                            Ops::template high_bit_chunk<C, 4>(span->qh));
        }
        template <class Ops, int R>
        static void scales_rows(const Block* const* b, typename Ops::Acc* scale, typename Ops::Acc* min) {
            Ops::template k_scales_mins_rows<R>(b, scale, min);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
            scales_rows<Ops, 1>(&span, &scale, &min);
        }
    };
};
static_assert(QuantType<Q5_K> && matches_format<Q5_K>());

}  // namespace tessera
