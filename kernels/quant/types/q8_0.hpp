// Q8_0: blocks of 32 values, one fp16 scale d and 32 signed 8-bit values;
// value = d * q. Also the activation format for Q4_0, Q5_0, Q8_0 and IQ4_NL dots.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct Q8_0 {
    static constexpr GgmlType id = GgmlType::Q8_0;
    static constexpr std::string_view name = "Q8_0";
    static constexpr size_t block_elems = 32;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 7;  // LLAMA_FTYPE_MOSTLY_Q8_0
    struct Block {
        uint16_t d;  // fp16 scale
        int8_t qs[32];
    };
    using DotType = Q8_0;
    // On the GPU (q8_0.glsl): 8 blocks' qs, then their d.
    struct GpuGroups {
        static constexpr uint32_t group_blocks = 8, plane_offset = offsetof(Block, qs), plane_bytes = 32;
    };

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int i = 0; i < 32; ++i) out[i] = float(b.qs[i]) * d;
    }

    // ggml's reference quantizer: d = max|x| / 127, q = round-half-away(x / d).
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        for (int i = 0; i < 32; ++i) amax = std::fmax(amax, std::fabs(in[i]));
        const float d = amax / 127.0f;
        // 0 when d is 0 or so small (float-subnormal inputs) that 1/d overflows.
        const float inv_d = std::isfinite(1.0f / d) ? 1.0f / d : 0.0f;
        b.d = fp32_to_fp16(d);
        for (int i = 0; i < 32; ++i) b.qs[i] = int8_t(std::round(in[i] * inv_d));
    }

    // llama.cpp's x86 activation quantizer: the same scale, but q = round-half-even(x * 127/max|x|).
    static void quantize_activation(const float* in, Block& b) {
        float amax = 0.0f;
        // std::max, not fmax: it inlines (same result; NaNs are skipped either way).
        for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(in[i]));
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        const float inv_d = std::isfinite(id) ? id : 0.0f;  // float-subnormal blocks quantize to 0
        b.d = fp32_to_fp16(amax / 127.0f);
        for (int i = 0; i < 32; ++i) b.qs[i] = int8_t(std::nearbyint(in[i] * inv_d));
    }

    static float dot(const Block* w, const Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int32_t isum = 0;
            for (int j = 0; j < 32; ++j) isum += int32_t(w[i].qs[j]) * int32_t(a[i].qs[j]);
            sum += float(isum) * (fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d));
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp): q + 128.
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 128;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::xor_(Ops::pair(span[2 * C].qs, span[2 * C + 1].qs), 0x80);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::template span_halves<offsetof(Block, d)>(span);
        }
    };
};
static_assert(QuantType<Q8_0> && matches_format<Q8_0>());

}  // namespace tessera
