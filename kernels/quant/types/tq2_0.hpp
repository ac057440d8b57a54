// TQ2_0: ternary blocks of 256 values (BitNet b1.58-style weights), one fp16
// scale d and a 2-bit q in 0..2 per value; value = d * (q - 1). Each 128
// values use 32 bytes of qs: value 32k + l of them is at bits 2k of byte l.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {

struct TQ2_0 {
    static constexpr GgmlType id = GgmlType::TQ2_0;
    static constexpr std::string_view name = "TQ2_0";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 37;  // LLAMA_FTYPE_MOSTLY_TQ2_0
    struct Block {
        uint8_t qs[64];
        uint16_t d;  // fp16
    };
    using DotType = Q8_K;

    static constexpr int q_byte(int i) { return 32 * (i / 128) + i % 32; }
    static constexpr int q_shift(int i) { return 2 * (i % 128 / 32); }
    static int q(const Block& b, int i) { return (b.qs[q_byte(i)] >> q_shift(i)) & 3; }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int i = 0; i < 256; ++i) out[i] = float(q(b, i) - 1) * d;
    }

    // ggml's reference quantizer: d = max|x|, q = round-half-away(x / d) + 1.
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        for (int i = 0; i < 256; ++i) amax = std::max(amax, std::fabs(in[i]));
        // 0 when amax is 0 or so small (float-subnormal inputs) that 1/amax overflows.
        const float inv_d = std::isfinite(1.0f / amax) ? 1.0f / amax : 0.0f;
        b.d = fp32_to_fp16(amax);
        std::fill(std::begin(b.qs), std::end(b.qs), uint8_t(0));
        for (int i = 0; i < 256; ++i) b.qs[q_byte(i)] |= uint8_t((std::lround(in[i] * inv_d) + 1) << q_shift(i));
    }

    static float dot(const Block* w, const Q8_K::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t n = 0; n < nblocks; ++n) {
            int32_t isum = 0;
            for (int i = 0; i < 256; ++i) isum += (q(w[n], i) - 1) * int32_t(a[n].qs[i]);
            sum += float(isum) * (fp16_to_fp32(w[n].d) * a[n].d);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): the stored q with
    // kOffset 1, every group scaled by d. The bits lie as Q2_K's.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 1;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::template crumb_chunk<C>(span->qs);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::set1(Ops::half(span->d));
        }
    };
};
static_assert(QuantType<TQ2_0> && matches_format<TQ2_0>());

}  // namespace tessera
