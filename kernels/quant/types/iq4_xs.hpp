// IQ4_XS: super-blocks of 256 values in 8 sub-blocks of 32, each with a signed
// 6-bit scale, scaled by the block's fp16 d; value = d*scale*kLevels[code] with
// 4-bit codes into IQ4_NL's non-uniform table.
#pragma once

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/iq4_nl.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct IQ4_XS {
    static constexpr GgmlType id = GgmlType::IQ4_XS;
    static constexpr std::string_view name = "IQ4_XS";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 30;  // LLAMA_FTYPE_MOSTLY_IQ4_XS
    struct Block {
        uint16_t d;           // fp16
        uint16_t scales_h;    // top 2 bits of scale j + 32 at bits 2j..2j+1
        uint8_t scales_l[4];  // low 4 bits of scale j + 32 in nibble j%2 of byte j/2
        uint8_t qs[128];      // per sub-block 16 bytes: low nibbles values 0..15, high nibbles 16..31
    };
    using DotType = Q8_K;

    static constexpr auto& kLevels = IQ4_NL::kValues;

    // The table as a level set for kquant's searches: the level nearest to t is
    // the highest one whose midpoint with the level below it lies under t.
    struct Levels {
        void nearest(kquant::Lanes& t) const {
            kquant::Lanes v = kquant::Lanes{} + float(kLevels[0]);
            for (int k = 1; k < 16; ++k)
                v = t > 0.5f * (kLevels[k - 1] + kLevels[k]) ? kquant::Lanes{} + float(kLevels[k]) : v;
            t = v;
        }
        int code(float t) const {
            int code = 0;
            for (int k = 1; k < 16; ++k) code += t > 0.5f * (kLevels[k - 1] + kLevels[k]);
            return code;
        }
        float lowest() const { return kLevels[0]; }
        float highest() const { return kLevels[15]; }
    };

    static constexpr int q_byte(int i) { return 16 * (i / 32) + i % 16; }
    static constexpr int q_shift(int i) { return 4 * (i % 32 / 16); }
    static int level(const Block& b, int i) { return kLevels[(b.qs[q_byte(i)] >> q_shift(i)) & 0xF]; }
    static int scale(const Block& b, int j) {
        const int low = (b.scales_l[j / 2] >> (4 * (j % 2))) & 0xF;
        const int high = (b.scales_h >> (2 * j)) & 3;
        return (low | (high << 4)) - 32;
    }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 8; ++j) {
            const float dl = d * float(scale(b, j));
            for (int i = 32 * j; i < 32 * j + 32; ++i) out[i] = dl * float(level(b, i));
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_symmetric_block<32>(in, Levels{}, -32, 31);
        b.d = fp32_to_fp16(quant.d);
        b.scales_h = 0;
        std::fill(std::begin(b.scales_l), std::end(b.scales_l), uint8_t(0));
        for (int j = 0; j < 8; ++j) {
            const int stored = quant.scales[j] + 32;
            b.scales_l[j / 2] |= uint8_t((stored & 0xF) << (4 * (j % 2)));
            b.scales_h |= uint16_t((stored >> 4) << (2 * j));
        }
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        for (int i = 0; i < 256; ++i) b.qs[q_byte(i)] |= uint8_t(quant.codes[i] << q_shift(i));
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t n = 0; n < nblocks; ++n) {
            const Block& b = w[n];
            int32_t scaled = 0;
            for (int j = 0; j < 8; ++j) {
                int32_t isum = 0;
                for (int i = 32 * j; i < 32 * j + 32; ++i) isum += level(b, i) * int32_t(a[n].qs[i]);
                scaled += scale(b, j) * isum;
            }
            sum += (fp16_to_fp32(b.d) * a[n].d) * float(scaled);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): the levels + 128, as IQ4_NL.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 128;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {  // per group 16 bytes, as IQ4_NL
            return Ops::lookup(Ops::nibbles_pair(span->qs + 32 * C, span->qs + 32 * C + 16),
                               IQ4_NL::CpuUnpack::kLevels.data());
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            uint64_t w = 0;
            for (int g = 0; g < 8; ++g) w |= uint64_t(uint8_t(IQ4_XS::scale(*span, g))) << (8 * g);
            scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w, 0));
        }
    };
};
static_assert(QuantType<IQ4_XS> && matches_format<IQ4_XS>());

}  // namespace tessera
