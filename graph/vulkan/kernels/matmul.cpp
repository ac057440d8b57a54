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
// Measured on an H200 (token generation, 2-layer Llama-2-7B and TinyLlama
// models, Q4_0, Q8_0, Q4_K, Q6_K and F16, the types' wide chunks): 128
// threads and 4 rows per workgroup were best or within 5% of the best of
// 32, 64, 128 and 256 threads by 2, 4 and 8 rows; 2 or 4 chunks in flight
// per thread (unrolled) gained nothing, and lost up to 50% on the K-quants.
// 2 rows were up to 15% faster on TinyLlama's 2048-row matrices but 10-30%
// slower on its and Llama's logits.
constexpr uint32_t kMatvecGroup = 128, kMatvecRows = 4;
// The tiled kernel's BM x BN tile, BK values per step and TM x TN per thread.
constexpr uint32_t kBM = 64, kBN = 64, kBK = 16, kTM = 4, kTN = 4;
constexpr uint32_t kTileGroup = (kBM / kTM) * (kBN / kTN);

struct MatmulPush {  // shaders/matmul_args.glsl
    uint32_t k, n, m, ne2, col_groups;
    uint32_t w_first, w_nb1;
    RowLayout x, y;
};

bool supports(const Tensor& y) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    // The shaders dequantize 4 values at a time.
    return find_shader(weight_shader("matvec", w.type)) && find_shader(weight_shader("matmul", w.type)) &&
           w.ne[0] % 4 == 0 && x.type == GgmlType::F32 && dense_rows(x, 4) && dense_rows(y, 4);
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
    const uint64_t row_groups = (uint64_t(push.n) + rows - 1) / rows;
    const uint32_t gz = push.col_groups * uint32_t(x.ne[2] * x.ne[3]);
    if (vec)
        rec.dispatch(weight_shader("matvec", w.type), {kMatvecGroup, kMatvecRows, cols}, {bw, bx},
                     {by}, push, row_groups, gz);
    else
        rec.dispatch(weight_shader("matmul", w.type), {kTileGroup, kBM, kBN, kBK, kTM, kTN}, {bw, bx}, {by}, push,
                     row_groups, gz);
}

}  // namespace

const VulkanKernel kMatmul{"matmul", supports, record};

}  // namespace tessera::vkk
