// Q8_1: blocks of 32 values, fp16 scale d, fp16 s = d * sum(q), and 32 signed
// 8-bit values q; value = d * q. The activation format for Q4_1 and Q5_1 dots:
// s carries the block sum those types' minimum term needs.
#pragma once

#include <algorithm>
#include <cmath>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct Q8_1 {
    static constexpr GgmlType id = GgmlType::Q8_1;
    static constexpr std::string_view name = "Q8_1";
    static constexpr size_t block_elems = 32;
    static constexpr bool quantizer_matches_ggml = true;
    struct Block {
        uint16_t d;  // fp16 scale
        uint16_t s;  // fp16 d * sum(qs)
        int8_t qs[32];
    };
    using DotType = Q8_1;

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        for (int j = 0; j < 32; ++j) out[j] = float(b.qs[j]) * d;
    }

    // ggml's reference quantizer: d = max|x| / 127, q = round-half-away(x / d).
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        for (int j = 0; j < 32; ++j) amax = std::fmax(amax, std::fabs(in[j]));
        const float d = amax / 127.0f;
        // 0 when d is 0 or so small (float-subnormal inputs) that 1/d overflows.
        const float inv_d = std::isfinite(1.0f / d) ? 1.0f / d : 0.0f;
        int32_t sum = 0;
        for (int j = 0; j < 32; ++j) {
            b.qs[j] = int8_t(std::round(in[j] * inv_d));
            sum += b.qs[j];
        }
        b.d = fp32_to_fp16(d);
        b.s = fp32_to_fp16(float(sum) * d);
    }

    // llama.cpp's x86 activation quantizer: as Q8_0::quantize_activation, and
    // s = fp16(d * sum(q)) with the unrounded d = max|x| / 127.
    static void quantize_activation(const float* in, Block& b) {
        float amax = 0.0f;
        // std::max, not fmax: it inlines (same result; NaNs are skipped either way).
        for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(in[j]));
        const float d = amax / 127.0f;
        const float id = amax != 0.0f ? 127.0f / amax : 0.0f;
        const float inv_d = std::isfinite(id) ? id : 0.0f;  // float-subnormal blocks quantize to 0
        int32_t sum = 0;
        for (int j = 0; j < 32; ++j) {
            b.qs[j] = int8_t(std::nearbyint(in[j] * inv_d));
            sum += b.qs[j];
        }
        b.d = fp32_to_fp16(d);
        b.s = fp32_to_fp16(d * float(sum));
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
};
static_assert(QuantType<Q8_1> && matches_format<Q8_1>());

}  // namespace tessera
