// Q6_K: super-blocks of 256 values in 16 sub-blocks of 16, each with a signed
// 8-bit scale, scaled by the block's fp16 d; value = d*scale*(q - 32) with
// 6-bit q (no min).
#pragma once

#include <cstddef>
#include <cstring>

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct Q6_K {
    static constexpr GgmlType id = GgmlType::Q6_K;
    static constexpr std::string_view name = "Q6_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = false;
    static constexpr uint32_t llama_file_type = 18;  // LLAMA_FTYPE_MOSTLY_Q6_K
    struct Block {
        uint8_t ql[128];    // low 4 bits of q, see ql_byte / ql_shift
        uint8_t qh[64];     // high 2 bits of q, see qh_byte / qh_shift
        int8_t scales[16];  // per sub-block
        uint16_t d;         // fp16
    };
    using DotType = Q8_K;
    // On the GPU (q6_k.glsl): 8 blocks' ql, qh and scales, then their d.
    struct GpuGroups {
        static constexpr uint32_t group_blocks = 8, plane_offset = 0, plane_bytes = offsetof(Block, d);
    };

    // Each 128 values use 64 bytes of ql and 32 of qh. Value l + 32k of them
    // (l < 32, k < 4) has its low nibble in ql[l + 32*(k%2)] (low nibble for
    // k < 2) and its high bits at bits 2k..2k+1 of qh[l].
    static constexpr int ql_byte(int i) { return 64 * (i / 128) + i % 32 + 32 * (i % 128 / 32 % 2); }
    static constexpr int ql_shift(int i) { return 4 * (i % 128 / 64); }
    static constexpr int qh_byte(int i) { return 32 * (i / 128) + i % 32; }
    static constexpr int qh_shift(int i) { return 2 * (i % 128 / 32); }
    static int q(const Block& b, int i) {
        const int low = (b.ql[ql_byte(i)] >> ql_shift(i)) & 0xF;
        const int high = (b.qh[qh_byte(i)] >> qh_shift(i)) & 3;
        return (low | (high << 4)) - 32;
    }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 16; ++j) {
            const float dl = d * float(b.scales[j]);
            for (int i = 16 * j; i < 16 * j + 16; ++i) out[i] = dl * float(q(b, i));
        }
    }

    static void quantize(const float* in, Block& b) {
        const auto quant = kquant::quantize_symmetric_block<16>(in, kquant::IntLevels{-32, 31}, -128, 127);
        b.d = fp32_to_fp16(quant.d);
        for (int j = 0; j < 16; ++j) b.scales[j] = int8_t(quant.scales[j]);
        std::fill(std::begin(b.ql), std::end(b.ql), uint8_t(0));
        std::fill(std::begin(b.qh), std::end(b.qh), uint8_t(0));
        for (int i = 0; i < 256; ++i) {
            const int stored = quant.codes[i] + 32;
            b.ql[ql_byte(i)] |= uint8_t((stored & 0xF) << ql_shift(i));
            b.qh[qh_byte(i)] |= uint8_t((stored >> 4) << qh_shift(i));
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
                scaled += b.scales[j] * isum;
            }
            sum += (fp16_to_fp32(b.d) * a[n].d) * float(scaled);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp); the bits lie as
    // ql_byte / qh_byte say.
    struct CpuUnpack {
        static constexpr int kGroup = 16, kOffset = 32;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            constexpr int S = 4 * (C % 2);
            return Ops::or_(Ops::template field<S>(span->ql + 64 * (C / 2), 0xF),
                            Ops::template shl<4>(Ops::template fields<S, S + 2>(span->qh + 32 * (C / 2), 3)));
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            uint64_t w[2];
            std::memcpy(w, span->scales, 16);
            scale = Ops::mul(Ops::set1(Ops::half(span->d)), Ops::from_i8(w[0], w[1]));
        }
    };
};
static_assert(QuantType<Q6_K> && matches_format<Q6_K>());

}  // namespace tessera
