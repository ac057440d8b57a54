// matmul (ops/matmul.hpp): the weight type's variant of shaders/quant/matvec.glsl
// for a few tokens, of shaders/quant/matmul.glsl (tiled) for more.
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/registry.hpp"
#include "graph/vulkan/kernels/weight_shaders.hpp"
#include "graph/vulkan/shader_library.hpp"

namespace tessera::vkk {

namespace {

// Up to this many tokens, matvec: it reads W once for all of them.
constexpr uint32_t kMatvecMaxTokens = 4;
// Measured on an H200 (token generation, TinyLlama and Llama-2-7B shapes):
// 2 rows per workgroup beat 1, 4 and 8 by 5-30%; 4 chunks in flight per
// thread of 128 beat 1 and 2 chunks of 256 threads by 1-6%.
constexpr uint32_t kMatvecGroup = 128, kMatvecRows = 2, kMatvecUnroll = 4;
// The tiled kernel's BM x BN tile, BK values per step and TM x TN per thread.
constexpr uint32_t kBM = 64, kBN = 64, kBK = 16, kTM = 4, kTN = 4;
constexpr uint32_t kTileGroup = (kBM / kTM) * (kBN / kTN);

struct MatmulPush {  // shaders/matmul_args.glsl
    uint32_t k, n, m, ne2, col_groups;
    uint32_t w_first, w_nb1;
    RowLayout x, y;
    RowLayout a;  // the addend (matvec)
    uint32_t a_ne1 = 1, a_ne2 = 1, a_ne3 = 1;
};

bool supports(const Tensor& y) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    // The shaders dequantize 4 values at a time.
    return find_shader(weight_shader("matvec", w.type)) && find_shader(weight_shader("matmul", w.type)) &&
           w.ne[0] % 4 == 0 && x.type == GgmlType::F32 && dense_rows(x, 4) && dense_rows(y, 4) &&
           (y.src.size() < 3 || dense_rows(*y.src[2], 4));
}

void record(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(y);
    const uint32_t block = ggml_type_traits(w.type).block_bytes, m = uint32_t(x.ne[1]);
    const bool vec = m <= kMatvecMaxTokens;
    const uint32_t cols = vec ? m : kBN, rows = vec ? kMatvecRows : kBM;
    MatmulPush push{.k = uint32_t(w.ne[0]),
                    .n = uint32_t(w.ne[1]),
                    .m = m,
                    .ne2 = uint32_t(x.ne[2]),
                    .col_groups = (m + cols - 1) / cols,
                    .w_first = bw.first(block),
                    .w_nb1 = uint32_t(w.nb[1] / block),
                    .x = row_layout(x, bx, 4),
                    .y = row_layout(y, by, 4)};
    const Tensor* addend = y.src.size() > 2 ? y.src[2] : nullptr;
    const BoundTensor ba = addend && vec ? rec.bind(*addend) : bx;
    if (addend && vec) {
        push.a = row_layout(*addend, ba, 4);
        push.a_ne1 = uint32_t(addend->ne[1]);
        push.a_ne2 = uint32_t(addend->ne[2]);
        push.a_ne3 = uint32_t(addend->ne[3]);
    }
    const uint64_t row_groups = (uint64_t(push.n) + rows - 1) / rows;
    const uint32_t gz = push.col_groups * uint32_t(x.ne[2] * x.ne[3]);
    if (vec)
        rec.dispatch(weight_shader("matvec", w.type),
                     {kMatvecGroup, kMatvecRows, cols, kMatvecUnroll, uint32_t(addend != nullptr)}, {bw, bx, ba},
                     {by}, push, row_groups, gz);
    else
        rec.dispatch(weight_shader("matmul", w.type), {kTileGroup, kBM, kBN, kBK, kTM, kTN}, {bw, bx}, {by}, push,
                     row_groups, gz);
    // The tiled kernel adds no addend: an add after it (prompts: one dispatch more does not matter).
    if (addend && !vec) record_add_in_place(y, *addend, rec);
}

}  // namespace

const VulkanKernel kMatmul{"matmul", supports, record};

}  // namespace tessera::vkk
