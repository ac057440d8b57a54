// Q4_1: blocks of 32 values, fp16 scale d and fp16 minimum m, and 32 4-bit
// values q (nibble order as Q4_0); value = d * q + m.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_1.hpp"

namespace tessera {

struct Q4_1 {
    static constexpr GgmlType id = GgmlType::Q4_1;
    static constexpr std::string_view name = "Q4_1";
    static constexpr size_t block_elems = 32;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 3;  // LLAMA_FTYPE_MOSTLY_Q4_1
    struct Block {
        uint16_t d;  // fp16 scale
        uint16_t m;  // fp16 minimum
        uint8_t qs[16];
    };
    using DotType = Q8_1;

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        const float m = fp16_to_fp32(b.m);
        for (int j = 0; j < 16; ++j) {
            out[j] = float(b.qs[j] & 0xF) * d + m;
            out[j + 16] = float(b.qs[j] >> 4) * d + m;
        }
    }

    // ggml's reference quantizer: [min, max] of the block maps to [0, 15].
    static void quantize(const float* in, Block& b) {
        float min = std::numeric_limits<float>::max();
        float max = -std::numeric_limits<float>::max();
        for (int j = 0; j < 32; ++j) {
            if (in[j] < min) min = in[j];
            if (in[j] > max) max = in[j];
        }
        const float d = (max - min) / 15.0f;
        // 0 when d is 0 or so small (float-subnormal inputs) that 1/d overflows.
        const float inv_d = std::isfinite(1.0f / d) ? 1.0f / d : 0.0f;
        b.d = fp32_to_fp16(d);
        b.m = fp32_to_fp16(min);
        for (int j = 0; j < 16; ++j) {
            const int lo = std::min(15, int(int8_t((in[j] - min) * inv_d + 0.5f)));
            const int hi = std::min(15, int(int8_t((in[j + 16] - min) * inv_d + 0.5f)));
            b.qs[j] = uint8_t(lo | (hi << 4));
        }
    }

    static float dot(const Block* w, const Q8_1::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int32_t isum = 0;
            for (int j = 0; j < 16; ++j) {
                isum += (w[i].qs[j] & 0xF) * int32_t(a[i].qs[j]);
                isum += (w[i].qs[j] >> 4) * int32_t(a[i].qs[j + 16]);
            }
            sum += (fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d)) * float(isum) +
                   fp16_to_fp32(w[i].m) * fp16_to_fp32(a[i].s);
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp).
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 0;
        static constexpr bool kHasMin = true;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::template nibble_chunk<C>(span);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc& min) {
            scale = Ops::template span_halves<offsetof(Block, d)>(span);
            min = Ops::template span_halves<offsetof(Block, m)>(span);
        }
    };
};
static_assert(QuantType<Q4_1> && matches_format<Q4_1>());

}  // namespace tessera
