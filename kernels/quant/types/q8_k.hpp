// Q8_K: blocks of 256 values, a float32 scale d, 256 signed 8-bit values and
// the sums of each group of 16 of them; value = d * q. The activation format
// for the dots of all K types and IQ4_XS (the group sums serve their mins).
#pragma once

#include <cmath>
#include <cstring>

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct Q8_K {
    static constexpr GgmlType id = GgmlType::Q8_K;
    static constexpr std::string_view name = "Q8_K";
    static constexpr size_t block_elems = 256;
    static constexpr bool quantizer_matches_ggml = true;
    struct Block {
        float d;
        int8_t qs[256];
        int16_t bsums[16];  // bsums[i] = sum of qs[16i .. 16i+15]
    };
    using DotType = Q8_K;

    static void dequantize(const Block& b, float* out) {
        for (int i = 0; i < 256; ++i) out[i] = b.d * float(b.qs[i]);
    }

    // ggml's quantizer: the value of largest magnitude maps to -127 exactly
    // (so the sign of d is that of -max), the rest round half to even.
    static void quantize(const float* in, Block& b) {
        float max = 0.0f, amax = 0.0f;
        for (int i = 0; i < 256; ++i) {
            if (std::fabs(in[i]) > amax) {
                amax = std::fabs(in[i]);
                max = in[i];
            }
        }
        if (amax == 0.0f) {
            std::memset(&b, 0, sizeof(b));
            return;
        }
        const float iscale = -127.0f / max;
        if (!std::isfinite(iscale)) {  // float-subnormal max: every q is 0 (converting inf to int is undefined)
            std::memset(&b, 0, sizeof(b));
            b.d = 1.0f / iscale;
            return;
        }
        for (int i = 0; i < 256; ++i) b.qs[i] = int8_t(std::min(127, kquant::round_to_int(iscale * in[i])));
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) sum += b.qs[16 * g + i];
            b.bsums[g] = int16_t(sum);
        }
        b.d = 1.0f / iscale;
    }

    // ggml quantizes activations with the same function.
    static void quantize_activation(const float* in, Block& b) { quantize(in, b); }

    static float dot(const Block* w, const Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int32_t isum = 0;
            for (int j = 0; j < 256; ++j) isum += int32_t(w[i].qs[j]) * int32_t(a[i].qs[j]);
            sum += (w[i].d * a[i].d) * float(isum);
        }
        return sum;
    }
};
static_assert(QuantType<Q8_K> && matches_format<Q8_K>());

}  // namespace tessera
