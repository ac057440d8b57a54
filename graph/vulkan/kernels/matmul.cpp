// matmul (ops/matmul.hpp): the weight type's variant of shaders/quant/matvec.glsl
// for a few tokens, for more of shaders/quant/matmul_coopmat.glsl or, for
// matrices of many rows, matmul_tall_coopmat.glsl (tensor cores) where the
// device and the build have them, else of shaders/quant/matmul.glsl (tiled).
#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/rope_args.hpp"
#include "graph/vulkan/kernels/weight_shaders.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/shader_library.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "ops/geglu.hpp"
#include "ops/matmul.hpp"
#include "ops/rms_norm.hpp"
#include "ops/rope.hpp"

namespace tessera::vkk {

namespace {

// The chunked matvec: 128 threads by 4 rows per workgroup, one chunk in
// flight per thread, the best of the shapes measured on a GPU; on a CPU
// device the workgroup is two subgroups instead
// (VulkanDevice::strided_group_size). Figures: docs/measured-choices.md#matvec-workgroup.
constexpr uint32_t kMatvecGroup = 128, kMatvecRows = 4;
// The staged variants (shaders/matvec_staged.glsl): a workgroup of
// kStagedGroup threads stages x once for all its subgroups, each of
// kStagedRows rows; larger workgroups pay for the staging, 512 by 2 the most
// (docs/measured-choices.md#staged-matvec-workgroup).
constexpr uint32_t kStagedGroup = 512, kStagedRows = 2;
// The staged variants' smallest subgroup: 8 invocations stage a block.
constexpr uint32_t kStagedMinSubgroup = 8;
// The tiled kernel's BM x BN tile, BK values per step (a multiple of 16:
// types with dequant16 take 16 values of a row at once) and TM x TN per thread.
struct Tile {
    uint32_t bm, bn, bk, tm, tn;
    uint32_t group() const { return (bm / tm) * (bn / tn); }
};
constexpr Tile kTile{64, 64, 16, 4, 4};
// A CPU device (lavapipe) pays for each invocation at each barrier
// (VulkanDevice::strided_group_size): 8 x 8 per thread and 32 values per
// step, a quarter of the invocations and half the steps
// (docs/measured-choices.md#tiled-matmul-on-a-cpu-device).
constexpr Tile kTileOnCpu{64, 64, 32, 8, 8};

struct MatmulPush {  // shaders/matmul_args.glsl
    uint32_t k, n, m, ne2, col_groups;
    uint32_t w_first, w_nb1;
    RowLayout x, y;
    RowLayout a;  // the addend (matvec)
    uint32_t a_ne1 = 1, a_ne2 = 1, a_ne3 = 1;
    // What a matvec fuses (matvec_fusion.hpp).
    uint32_t x2_first = 0, x2_nb1 = 0;
    float eps = 0;
    uint32_t rope_firsts = 0;  // positions' first | frequency factors' first << 16
    float freq_scale = 0, log2_rate = 0;
    uint32_t rot = 0;  // n_rot | head_dim << 16
    uint32_t ids_first = 0, dst_ne1 = 0, y_nb_head = 0;
};

// A tensor-core kernel: its skeleton, its BM x BN tile and BK values per
// step; each subgroup computes frag_rows x 2 of the device's cooperative
// matrices, which must divide the tile.
struct CoopTile {
    std::string_view skeleton;
    uint32_t bm, bn, bk, frag_rows;

    uint32_t subgroups(const CoopmatShape& s) const { return (bm / (frag_rows * s.m)) * (bn / (2 * s.n)); }
    // Two W and two x tiles of fp16 rows padded by 8 values, and a CM x CN
    // fp32 staging matrix per subgroup (shaders/quant/matmul_coopmat.glsl).
    uint32_t shared_bytes(const CoopmatShape& s) const { return 2 * (bm + bn) * (bk + 8) * 2 + subgroups(s) * s.m * s.n * 4; }
};

// Double-buffered tiles, BK 64 (x comes as an fp16 copy), subgroups of
// 32 x 32 in 64 x 64 x 64 tiles; matrices of kTallFromRows rows or more get
// subgroups of 64 x 32 in 64 x 128 x 32 tiles, which smaller ones do not fill
// a large GPU with (docs/measured-choices.md#tensor-core-tiles).
constexpr CoopTile kCoopSquare{"matmul_coopmat", 64, 64, 64, 2}, kCoopTall{"matmul_tall_coopmat", 64, 128, 32, 4};
static_assert(kTile.bk % 16 == 0 && kTileOnCpu.bk % 16 == 0 && kCoopSquare.bk % 16 == 0 && kCoopTall.bk % 16 == 0, "whole runs of dequant16");
constexpr int64_t kTallFromRows = 4096;

// The tensor-core variant for weights w (bound as bw) where the device and
// the build have it, and where F16 rows start 8-byte aligned (f16.glsl loads
// them 4 values at once).
std::optional<std::pair<std::string, CoopTile>> coopmat_shader(VulkanDevice& device, const Tensor& w, const BoundTensor& bw) {
    const CoopmatShape& s = device.coopmat();
    const CoopTile& t = w.ne[1] >= kTallFromRows ? kCoopTall : kCoopSquare;
    std::string name = weight_shader(t.skeleton, w.type);
    if (!s || t.bm % (t.frag_rows * s.m) != 0 || t.bn % (2 * s.n) != 0 || t.bk % s.k != 0 || !find_shader(name) ||
        t.shared_bytes(s) > device.limits().maxComputeSharedMemorySize ||
        (w.type == GgmlType::F16 && !whole_pieces(bw, w, 8)))
        return std::nullopt;
    return std::pair{std::move(name), t};
}

// The push constants of every variant for y = W x; `cols`: tokens per workgroup.
MatmulPush matmul_push(const Tensor& w, const Tensor& x, const BoundTensor& bw, const BoundTensor& bx,
                       uint32_t cols) {
    const uint32_t block = ggml_type_traits(w.type).block_bytes, m = uint32_t(x.ne[1]);
    return {.k = uint32_t(w.ne[0]),
            .n = uint32_t(w.ne[1]),
            .m = m,
            .ne2 = uint32_t(x.ne[2]),
            .col_groups = (m + cols - 1) / cols,
            .w_first = bw.first(block),
            .w_nb1 = uint32_t(w.nb[1] / block),
            .x = row_layout(x, bx, 4)};
}

// How a staged variant holds x (shaders/matvec_staged.glsl).
enum class StagedX { F32, Bytes, Bytes16 };

// Shared memory of a staged variant for `cols` tokens of k values and a
// workgroup of `group` (shaders/matvec_staged.glsl): per block of 32 values
// two padded halves of 16 bytes per plane of bytes (two planes with 16-bit
// x), a vec4 of its scale and sums and a float for a scale kept apart, or 8
// vec4s (F32, padded by one vec4 per 8 blocks); and a float per token and
// subgroup.
uint32_t staged_shared_bytes(StagedX x, uint32_t k, uint32_t cols, uint32_t group) {
    const uint32_t blocks = cols * k / 32, per_subgroup = cols * group / kStagedMinSubgroup * 4;
    if (x == StagedX::F32) return 8 * ((blocks + 7) / 8 * 8 + 1) * 16 + per_subgroup;
    const uint32_t planes = x == StagedX::Bytes16 ? 2 : 1;
    return planes * 2 * ((blocks + 7) / 8 * 8 + 4) * 16 + blocks * (16 + 4) + per_subgroup;
}

struct MatvecVariant {
    std::string shader;
    bool staged;
    uint32_t rows = kStagedRows;  // staged: rows per subgroup
};

// Rows per subgroup of the 16-bit staged variant: one where a row's unit
// holds a byte or more per value (Q8_0) and no rope pairs rows (a pair is in
// one subgroup), else kStagedRows: what the measured row counts favoured
// (docs/measured-choices.md#rows-of-the-16-bit-staged-matvec).
uint32_t x16_rows(GgmlType type, bool rope) {
    const GgmlTypeTraits& t = ggml_type_traits(type);
    return t.block_bytes >= t.block_elems && !rope ? 1 : kStagedRows;
}

// The matvec variant for weights of `type` and `cols` tokens of k values:
// with integer dot products where the type, the build and the device have
// them (8-bit activations: staged or chunked; 16-bit: staged only), else
// with F32 x; staged where the type has that variant and its shared memory
// fits, else chunked.
MatvecVariant matvec_variant(VulkanDevice& device, GgmlType type, ActivationPrecision precision, uint32_t k,
                             uint32_t cols, bool rope) {
    const VulkanDeviceInfo& info = device.info();
    const bool can_stage = info.subgroup_shuffle && info.subgroup_size >= kStagedMinSubgroup &&
                           kStagedRows * cols <= kStagedMinSubgroup && k % 32 == 0;
    auto stages = [&](const std::string& shader, StagedX x) {
        return can_stage && find_shader(shader) &&
               staged_shared_bytes(x, k, cols, device.strided_group_size(kStagedGroup)) <=
                   device.limits().maxComputeSharedMemorySize;
    };
    if (precision == ActivationPrecision::Q8 && info.int_dot) {
        std::string staged = weight_shader("matvec_staged_idot", type), chunked = weight_shader("matvec_idot", type);
        if (stages(staged, StagedX::Bytes)) return {std::move(staged), true};
        if (find_shader(chunked)) return {std::move(chunked), false};
    }
    if (precision == ActivationPrecision::Q16 && info.int_dot) {
        std::string staged = weight_shader("matvec_staged_idot16", type);
        if (stages(staged, StagedX::Bytes16)) return {std::move(staged), true, x16_rows(type, rope)};
    }
    std::string staged = weight_shader("matvec_staged", type);
    if (stages(staged, StagedX::F32)) return {std::move(staged), true};
    return {weight_shader("matvec", type), false};
}

uint64_t groups_of(uint32_t rows, uint32_t per_group) { return (uint64_t(rows) + per_group - 1) / per_group; }

// shaders/quant/matvec.glsl's PROLOGUE: how x comes from the matvec's loads.
enum class Prologue : uint32_t { Plain = 0, Norm = 1, NormGain = 2, Swiglu = 3, Geglu = 4 };

// shaders/quant/matvec.glsl's ROPE_KIND: whether and how the rows are rotated.
enum class RopeKind : uint32_t { None = 0, Plain = 1, WithFactors = 2 };

// The push constant rope_firsts: where the rope's positions and frequency
// factors start in their bindings, in one field (the block is full at 128
// bytes). Each is a binding's shift over 4, and a shift is under 256 bytes
// (Vulkan's bound on minStorageBufferOffsetAlignment): 16 bits hold it.
uint32_t rope_firsts(uint32_t positions_first, uint32_t factors_first) { return positions_first | factors_first << 16; }

}  // namespace

// Matrix x vector, with what it fuses: the addend, x's norm, swiglu or geglu, rope
// and the store into a cache.
void record_matvec(const FusedMatvec& f, Recorder& rec) {
    const Tensor &mm = *f.matmul, &w = *mm.src[0], &out = f.out();
    const Tensor& x = f.norm ? *f.norm->src[0] : f.glu ? *f.glu->src[0] : *mm.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(out);
    const uint32_t cols = uint32_t(x.ne[1]);
    MatmulPush push = matmul_push(w, x, bw, bx, cols);
    push.y = row_layout(f.rope ? *f.matmul : out, by, 4);  // a rope's rows are the product's
    const Tensor* addend = mm.src.size() > 2 ? mm.src[2] : nullptr;
    const BoundTensor ba = addend ? rec.bind(*addend) : bx;
    if (addend) {
        push.a = row_layout(*addend, ba, 4);
        push.a_ne1 = uint32_t(addend->ne[1]);
        push.a_ne2 = uint32_t(addend->ne[2]);
        push.a_ne3 = uint32_t(addend->ne[3]);
    }
    Prologue prologue = Prologue::Plain;
    BoundTensor bx2 = bx;
    if (f.norm) {
        const bool gain = f.norm->src.size() > 1;
        prologue = gain ? Prologue::NormGain : Prologue::Norm;
        push.eps = f.norm->param<RmsNormParams>().eps;
        if (gain) bx2 = rec.bind(*f.norm->src[1]);
        push.x2_first = bx2.first(4);
    } else if (f.glu) {
        const Tensor& up = *f.glu->src[1];
        prologue = f.glu->op == &ops::kGeglu ? Prologue::Geglu : Prologue::Swiglu;
        bx2 = rec.bind(up);
        push.x2_first = bx2.first(4);
        push.x2_nb1 = uint32_t(up.nb[1] / 4);
    }
    BoundTensor bpos = bx, bids = bx, bfactors = bx;
    RopeKind rope = RopeKind::None;
    push.rot = uint32_t(f.head_dim) << 16;
    if (f.rope) {
        const RopeParams& rp = f.rope->param<RopeParams>();
        const Tensor* factors = rope_freq_factors(*f.rope);
        rope = factors ? RopeKind::WithFactors : RopeKind::Plain;
        bpos = rec.bind(*f.rope->src[1]);
        if (factors) bfactors = rec.bind(*factors);
        push.rope_firsts = rope_firsts(bpos.first(4), bfactors.first(4));
        push.freq_scale = rp.freq_scale;
        push.log2_rate = rope_log2_rate(rp);
        push.rot |= uint32_t(rp.n_rot);
    }
    const bool f16 = f.store && f.store->type == GgmlType::F16;
    if (f.store) {  // y: the cache, [head_dim, cache rows, heads]
        const uint32_t elem = f16 ? 2 : 4;
        bids = rec.bind(*f.store->src[2]);
        push.ids_first = bids.first(4);
        push.y = row_layout(out, by, elem);
        push.y_nb_head = uint32_t(out.nb[2] / elem);
        push.dst_ne1 = uint32_t(out.ne[1]);
    }
    VulkanDevice& device = rec.device();
    const MatvecVariant variant =
        matvec_variant(device, w.type, mm.param<ActivationPrecision>(), push.k, cols, f.rope != nullptr);
    std::vector<uint32_t> spec{0, kMatvecRows, cols, uint32_t(addend != nullptr), uint32_t(prologue), uint32_t(rope),
                               uint32_t(f.store != nullptr), uint32_t(f16)};
    uint32_t group_rows = kMatvecRows;
    if (variant.staged) {
        spec[0] = device.strided_group_size(kStagedGroup);
        spec[1] = variant.rows;
        group_rows = variant.rows * std::max(spec[0] / device.info().subgroup_size, 1u);
        spec.insert(spec.end(), {push.k / 32 * cols, group_rows});
    } else {
        // At least a thread per row and token: each stores one.
        spec[0] = std::max(device.strided_group_size(kMatvecGroup), kMatvecRows * cols);
    }
    rec.dispatch(variant.shader, spec, {bw, bx, ba, bx2, bpos, bids, bfactors}, {by}, push,
                 groups_of(push.n, group_rows), push.col_groups * uint32_t(x.ne[2] * x.ne[3]));
}

namespace {

// Matrix x matrix: tensor cores where the device and the build have them,
// else the tiled kernel; neither adds the addend, an add after them does
// (prompts: one dispatch more does not matter).
void record_matmul(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(y);
    const uint32_t batches = uint32_t(x.ne[2] * x.ne[3]);
    auto matmul_push = [&](uint32_t cols) {
        MatmulPush push = vkk::matmul_push(w, x, bw, bx, cols);
        push.y = row_layout(y, by, 4);
        return push;
    };
    if (const auto coop = coopmat_shader(rec.device(), w, bw)) {
        const auto& [shader, t] = *coop;
        MatmulPush push = matmul_push(t.bn);
        const HalfCopy x16 = record_half_copy(x, rec);
        push.x = x16.rows;
        const CoopmatShape& s = rec.device().coopmat();
        const uint32_t group = t.subgroups(s) * rec.device().info().subgroup_size;
        rec.dispatch(shader, {group, t.bm, t.bn, t.bk, s.m, s.n, s.k}, {bw, x16.binding}, {by}, push, groups_of(push.n, t.bm),
                     push.col_groups * batches);
    } else {
        const Tile& t = rec.device().info().on_host_cpu ? kTileOnCpu : kTile;
        const MatmulPush push = matmul_push(t.bn);
        rec.dispatch(weight_shader("matmul", w.type), {t.group(), t.bm, t.bn, t.bk, t.tm, t.tn}, {bw, bx}, {by}, push,
                     groups_of(push.n, t.bm), push.col_groups * batches);
    }
    if (y.src.size() > 2) record_add_in_place(y, *y.src[2], rec);
}

bool supports(const Tensor& y) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    // The shaders dequantize 4 values at a time.
    return find_shader(weight_shader("matvec", w.type)) && find_shader(weight_shader("matmul", w.type)) &&
           in_gpu_layout(w) && w.ne[0] % 4 == 0 && x.type == GgmlType::F32 && dense_rows(x, 4) && dense_rows(y, 4) &&
           (y.src.size() < 3 || dense_rows(*y.src[2], 4));
}

void record(const Tensor& y, Recorder& rec) {
    if (const auto f = fused_matvec(y))  // few tokens
        record_matvec(*f, rec);
    else
        record_matmul(y, rec);
}

// x, where the tensor-core matmul records the node.
const Tensor* half_input(const Tensor& y, Recorder& rec) {
    const Tensor& w = *y.src[0];
    if (fused_matvec(y) || !coopmat_shader(rec.device(), w, bind_blocks(rec, w))) return nullptr;
    return y.src[1];
}

}  // namespace

const VulkanKernel kMatmul{&ops::kMatmul, supports, record, half_input};

namespace {

[[maybe_unused]] const bool registered = register_kernel(kMatmul);

}  // namespace

}  // namespace tessera::vkk
