// BF16: bfloat16 (the top 16 bits of an IEEE float), one value per "block".
// Also the activation format for BF16 dots.
#pragma once

#include "kernels/quant/half.hpp"
#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct BF16 {
    static constexpr GgmlType id = GgmlType::BF16;
    static constexpr std::string_view name = "BF16";
    static constexpr size_t block_elems = 1;
    static constexpr bool quantizer_matches_ggml = true;
    static constexpr uint32_t llama_file_type = 32;  // LLAMA_FTYPE_MOSTLY_BF16
    struct Block {
        uint16_t bits;
    };
    using DotType = BF16;

    static void dequantize(const Block& b, float* out) { out[0] = bf16_to_fp32(b.bits); }
    static void quantize(const float* in, Block& b) { b.bits = fp32_to_bf16(in[0]); }
    static float dot(const Block* w, const Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) sum += bf16_to_fp32(w[i].bits) * bf16_to_fp32(a[i].bits);
        return sum;
    }
};
static_assert(QuantType<BF16> && matches_format<BF16>());

}  // namespace tessera
