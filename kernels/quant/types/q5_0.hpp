// Q5_0: blocks of 32 values, one fp16 scale d and 32 5-bit values q. The low
// four bits are packed as in Q4_0; bit 4 of value j is bit j of qh (a
// little-endian uint32). value = d * (q - 16).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"
#include "kernels/quant/types/q8_0.hpp"

namespace tessera {

struct Q5_0 {
    static constexpr GgmlType id = GgmlType::Q5_0;
    static constexpr std::string_view name = "Q5_0";
    static constexpr size_t block_elems = 32;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 8;  // LLAMA_FTYPE_MOSTLY_Q5_0
    struct Block {
        uint16_t d;  // fp16 scale
        uint8_t qh[4];
        uint8_t qs[16];
    };
    using DotType = Q8_0;

    // The 32 values of q (0..31).
    static void unpack(const Block& b, int* q) {
        const uint32_t qh = uint32_t(b.qh[0]) | uint32_t(b.qh[1]) << 8 | uint32_t(b.qh[2]) << 16 |
                            uint32_t(b.qh[3]) << 24;
        for (int j = 0; j < 16; ++j) {
            q[j] = (b.qs[j] & 0xF) | int((qh >> j) & 1u) << 4;
            q[j + 16] = (b.qs[j] >> 4) | int((qh >> (j + 16)) & 1u) << 4;
        }
    }

    static void dequantize(const Block& b, float* out) {
        const float d = fp16_to_fp32(b.d);
        int q[32];
        unpack(b, q);
        for (int j = 0; j < 32; ++j) out[j] = float(q[j] - 16) * d;
    }

    // ggml's reference quantizer: the value of largest magnitude maps to -16.
    static void quantize(const float* in, Block& b) {
        float amax = 0.0f;
        float max = 0.0f;  // signed value of largest magnitude (first one on ties)
        for (int j = 0; j < 32; ++j) {
            if (std::fabs(in[j]) > amax) {
                amax = std::fabs(in[j]);
                max = in[j];
            }
        }
        const float d = max / -16.0f;
        // 0 when d is 0 or so small (float-subnormal inputs) that 1/d overflows.
        const float inv_d = std::isfinite(1.0f / d) ? 1.0f / d : 0.0f;
        b.d = fp32_to_fp16(d);
        uint32_t qh = 0;
        for (int j = 0; j < 16; ++j) {
            const int lo = std::min(31, int(int8_t(in[j] * inv_d + 16.5f)));
            const int hi = std::min(31, int(int8_t(in[j + 16] * inv_d + 16.5f)));
            b.qs[j] = uint8_t((lo & 0xF) | (hi & 0xF) << 4);
            qh |= uint32_t(lo >> 4) << j | uint32_t(hi >> 4) << (j + 16);
        }
        for (int k = 0; k < 4; ++k) b.qh[k] = uint8_t(qh >> (8 * k));
    }

    static float dot(const Block* w, const Q8_0::Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) {
            int q[32];
            unpack(w[i], q);
            int32_t isum = 0;
            for (int j = 0; j < 32; ++j) isum += (q[j] - 16) * int32_t(a[i].qs[j]);
            sum += float(isum) * (fp16_to_fp32(w[i].d) * fp16_to_fp32(a[i].d));
        }
        return sum;
    }

    // CPU matmul unpack (kernels/cpu/matmul/unpack.hpp).
    struct CpuUnpack {
        static constexpr int kGroup = 32, kOffset = 16;
        static constexpr bool kHasMin = false;
        template <class Ops, int C>
        static auto chunk(const Block* span) {
            return Ops::template five_bit_chunk<C>(span);
        }
        template <class Ops>
        static void scales(const Block* span, typename Ops::Acc& scale, typename Ops::Acc&) {
            scale = Ops::template span_halves<offsetof(Block, d)>(span);
        }
    };
};
static_assert(QuantType<Q5_0> && matches_format<Q5_0>());

}  // namespace tessera
