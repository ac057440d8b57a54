// Q4_0: blocks of 32 values, one fp16 scale d and 32 4-bit values q (two per
// byte: value j in the low nibble of qs[j], value j+16 in the high nibble);
// value = d * (q - 8).
#pragma once

#include <algorithm>
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

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp), without shifts: a
    // block's low nibbles q become q + 128 and its high nibbles stay in place,
    // 16q + 8, so that with kOffset = 136 the low 16 values are q - 8 and the
    // high 16 are 16 (q - 8), in groups of 16 whose scale is d, d/16 (exact: a
    // power of two).
    struct CpuUnpack {
        static constexpr int kGroup = 16, kOffset = 136;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::nibbles_in_place_pair(span[2 * C].qs, span[2 * C + 1].qs, 0x80, 0x08);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::mul(Ops::template span_halves_twice<offsetof(Block, d)>(span),
                             Ops::load(Ops::kOddSixteenth.data()));
        }
    };
};
static_assert(QuantType<Q4_0> && matches_format<Q4_0>());

}  // namespace tessera
