// matmul (ops/matmul.hpp): the weight type's variant of shaders/quant/matvec.glsl
// for a few tokens, for more of shaders/quant/matmul_coopmat.glsl (tensor
// cores) where the device and the build have it, else of
// shaders/quant/matmul.glsl (tiled).
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
    RowLayout a;  // the addend (matvec)
    uint32_t a_ne1 = 1, a_ne2 = 1, a_ne3 = 1;
};

// The tensor-core kernel's BM x BN tile, WM x WN per subgroup (8 subgroups),
// BK values per step; the device's cooperative-matrix shape must divide them.
// Measured on an H200 (Llama-2-7B shapes, 512 tokens): 8 subgroups of 32 x 16
// beat 4 of 32 x 32 by 30-40%, and tiles of 128 x 64 and 128 x 128.
// Double-buffered tiles took 4096 x 4096 from 0.345 to 0.334 ms and 11008 x
// 4096 from 0.93 to 0.90 ms. Not better (double-buffered or not): subgroups
// of 32 x 32, 64 x 16, 32 x 64 or 64 x 32 (fragments reused) in 128 x 64 and
// 128 x 128 tiles (0.43-0.61 ms), 64 x 128 tiles (0.59 ms), BK 64 (0.354 ms).
constexpr uint32_t kCoopBM = 64, kCoopBN = 64, kCoopBK = 32, kCoopWM = 32, kCoopWN = 16;

// The tensor-core variant for weights of `type` where the device and the
// build have it, else empty.
std::string coopmat_shader(VulkanDevice& device, GgmlType type) {
    const CoopmatShape& s = device.coopmat();
    const std::string name = weight_shader("matmul_coopmat", type);
    if (!s || kCoopWM % s.m != 0 || kCoopWN % s.n != 0 || kCoopBK % s.k != 0 || !find_shader(name)) return {};
    return name;
}

// The push constants of every variant; `cols`: tokens per workgroup.
MatmulPush matmul_push(const Tensor& y, const BoundTensor& bw, const BoundTensor& bx, const BoundTensor& by,
                       uint32_t cols) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const uint32_t block = ggml_type_traits(w.type).block_bytes, m = uint32_t(x.ne[1]);
    return {.k = uint32_t(w.ne[0]),
            .n = uint32_t(w.ne[1]),
            .m = m,
            .ne2 = uint32_t(x.ne[2]),
            .col_groups = (m + cols - 1) / cols,
            .w_first = bw.first(block),
            .w_nb1 = uint32_t(w.nb[1] / block),
            .x = row_layout(x, bx, 4),
            .y = row_layout(y, by, 4)};
}

uint64_t groups_of(uint32_t rows, uint32_t per_group) { return (uint64_t(rows) + per_group - 1) / per_group; }

// Matrix x vector: the addend, if any, is added in the same dispatch.
void record_matvec(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(y);
    const uint32_t cols = uint32_t(x.ne[1]);
    MatmulPush push = matmul_push(y, bw, bx, by, cols);
    const Tensor* addend = y.src.size() > 2 ? y.src[2] : nullptr;
    const BoundTensor ba = addend ? rec.bind(*addend) : bx;
    if (addend) {
        push.a = row_layout(*addend, ba, 4);
        push.a_ne1 = uint32_t(addend->ne[1]);
        push.a_ne2 = uint32_t(addend->ne[2]);
        push.a_ne3 = uint32_t(addend->ne[3]);
    }
    rec.dispatch(weight_shader("matvec", w.type),
                 {kMatvecGroup, kMatvecRows, cols, uint32_t(addend != nullptr)}, {bw, bx, ba}, {by},
                 push, groups_of(push.n, kMatvecRows), push.col_groups * uint32_t(x.ne[2] * x.ne[3]));
}

// Matrix x matrix: tensor cores where the device and the build have them,
// else the tiled kernel; neither adds the addend, an add after them does
// (prompts: one dispatch more does not matter).
void record_matmul(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(y);
    const uint32_t batches = uint32_t(x.ne[2] * x.ne[3]);
    if (const std::string shader = coopmat_shader(rec.device(), w.type); !shader.empty()) {
        const MatmulPush push = matmul_push(y, bw, bx, by, kCoopBN);
        const CoopmatShape& s = rec.device().coopmat();
        const uint32_t group = (kCoopBM / kCoopWM) * (kCoopBN / kCoopWN) * rec.device().info().subgroup_size;
        rec.dispatch(shader, {group, kCoopBM, kCoopBN, kCoopBK, kCoopWM, kCoopWN, s.m, s.n, s.k}, {bw, bx}, {by},
                     push, groups_of(push.n, kCoopBM), push.col_groups * batches);
    } else {
        const MatmulPush push = matmul_push(y, bw, bx, by, kBN);
        rec.dispatch(weight_shader("matmul", w.type), {kTileGroup, kBM, kBN, kBK, kTM, kTN}, {bw, bx}, {by}, push,
                     groups_of(push.n, kBM), push.col_groups * batches);
    }
    if (y.src.size() > 2) record_add_in_place(y, *y.src[2], rec);
}

bool supports(const Tensor& y) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    // The shaders dequantize 4 values at a time.
    return find_shader(weight_shader("matvec", w.type)) && find_shader(weight_shader("matmul", w.type)) &&
           w.ne[0] % 4 == 0 && x.type == GgmlType::F32 && dense_rows(x, 4) && dense_rows(y, 4) &&
           (y.src.size() < 3 || dense_rows(*y.src[2], 4));
}

void record(const Tensor& y, Recorder& rec) {
    if (y.src[1]->ne[1] <= kMatvecMaxTokens)
        record_matvec(y, rec);
    else
        record_matmul(y, rec);
}

}  // namespace

const VulkanKernel kMatmul{"matmul", supports, record};

}  // namespace tessera::vkk
