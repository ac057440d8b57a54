// F16: IEEE binary16, one value per "block". Also the activation format for F16 dots.
#pragma once

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct F16 {
    static constexpr GgmlType id = GgmlType::F16;
    static constexpr std::string_view name = "F16";
    static constexpr size_t block_elems = 1;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 1;  // LLAMA_FTYPE_MOSTLY_F16
    struct Block {
        uint16_t bits;
    };
    using DotType = F16;

    static void dequantize(const Block& b, float* out) { out[0] = fp16_to_fp32(b.bits); }
    static void quantize(const float* in, Block& b) { b.bits = fp32_to_fp16(in[0]); }
    static float dot(const Block* w, const Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) sum += fp16_to_fp32(w[i].bits) * fp16_to_fp32(a[i].bits);
        return sum;
    }
};
static_assert(QuantType<F16> && matches_format<F16>());

}  // namespace tessera
