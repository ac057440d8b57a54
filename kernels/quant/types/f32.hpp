// F32: plain IEEE single precision, one value per "block".
#pragma once

#include "kernels/quant/quant_type.hpp"

namespace tessera {

struct F32 {
    static constexpr GgmlType id = GgmlType::F32;
    static constexpr std::string_view name = "F32";
    static constexpr size_t block_elems = 1;
    static constexpr uint32_t llama_file_type = 0;  // LLAMA_FTYPE_ALL_F32
    struct Block {
        float v;
    };
    using DotType = F32;

    static void dequantize(const Block& b, float* out) { out[0] = b.v; }
    static void quantize(const float* in, Block& b) { b.v = in[0]; }
    static float dot(const Block* w, const Block* a, size_t nblocks) {
        float sum = 0.0f;
        for (size_t i = 0; i < nblocks; ++i) sum += w[i].v * a[i].v;
        return sum;
    }
};
static_assert(QuantType<F32> && matches_format<F32>());

}  // namespace tessera
