// Q3_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 6-bit scale, scaled by the block's fp16 d; value = d*scale*q with 3-bit q in
// -4..3 (no min).
#pragma once

#include <cstring>

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct Q3_K {
    static constexpr GgmlType id = GgmlType::Q3_K;
    static constexpr std::string_view name = "Q3_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 11;  // LLAMA_FTYPE_MOSTLY_Q3_K_S
    struct Block {
        uint8_t hmask[32];   // high bits of q+4: value i is bit i/32 of hmask[i%32]
        uint8_t qs[64];      // low 2 bits of q+4, arranged as Q2_K's qs
        uint8_t scales[12];  // 16 scales + 32 in 6 bits, see scale()
        uint16_t d;          // fp16
    };
    using DotType = Q8_K;

    static constexpr int q_byte(int i) { return 32 * (i / 128) + i % 32; }
    static constexpr int q_shift(int i) { return 2 * (i % 128 / 32); }
    static int q(const Block& b, int i) {
        const int low = (b.qs[q_byte(i)] >> q_shift(i)) & 3;
        const int high = (b.hmask[i % 32] >> (i / 32)) & 1;
        return low - (high ? 0 : 4);
    }

    // Scale j keeps its low nibble in byte j%8 (low nibble for j < 8, high
    // nibble for j >= 8) and its top two bits in bits 2*(j/4).. of byte 8 + j%4.
    static constexpr int scale(const uint8_t* packed, int j) {
        const int low = j < 8 ? packed[j] & 0xF : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        return (low | (high << 4)) - 32;
    }
    static constexpr void pack_scales(const std::array<int, 16>& scales, uint8_t* packed) {
        for (int j = 0; j < 12; ++j) packed[j] = 0;
        for (int j = 0; j < 16; ++j) {
            const int v = scales[j] + 32;
            packed[j % 8] |= uint8_t((v & 0xF) << (4 * (j / 8)));
            packed[8 + j % 4] |= uint8_t((v >> 4) << (2 * (j / 4)));
        }
    }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 16; ++j) {
            const float dl = d * float(scale(b.scales, j));
            for (int i = 16 * j; i < 16 * j + 16; ++i) out[i] = dl * float(q(b, i));
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_symmetric_block<16>(in, kquant::IntLevels{-4, 3}, -32, 31);
        b.d = fp32_to_fp16(quant.d);
        pack_scales(quant.scales, b.scales);
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        std::fill(std::begin(b.hmask), std::end(b.hmask), uint8_t(0));
        for (int i = 0; i < 256; ++i) {
            const int stored = quant.codes[i] + 4;
            b.qs[q_byte(i)] |= uint8_t((stored & 3) << q_shift(i));
            b.hmask[i % 32] |= uint8_t((stored >> 2) << (i / 32));
        }
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t n = 0; n < nblocks; ++n) {
            const Block& b = w[n];
            int32_t scaled = 0;
            for (int j = 0; j < 16; ++j) {
                int32_t isum = 0;
                for (int i = 16 * j; i < 16 * j + 16; ++i) isum += q(b, i) * int32_t(a[n].qs[i]);
                scaled += scale(b.scales, j) * isum;
            }
            sum += (fp16_to_fp32(b.d) * a[n].d) * float(scaled);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): the stored q + 4 =
    // low bits + 4 * high bit.
    struct CpuUnpack {
        static constexpr int kGroup = 16, kOffset = 4;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::or_(Ops::template crumb_chunk<C>(span->qs), Ops::template high_bit_chunk<C, 2>(span->hmask));
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            int8_t sc[16];
            for (int g = 0; g < 16; ++g) sc[g] = int8_t(Q3_K::scale(span->scales, g));
            uint64_t w[2];
            std::memcpy(w, sc, 16);
            scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w[0], w[1]));
        }
    };
};
static_assert(QuantType<Q3_K> && matches_format<Q3_K>());

}  // namespace tessera
