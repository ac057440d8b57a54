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
#include "graph/vulkan/kernels/matmul_variants.hpp"
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

// shaders/quant/matvec.glsl's PROLOGUE: how x comes from the matvec's loads.
enum class Prologue : uint32_t { Plain = 0, Norm = 1, NormGain = 2, Swiglu = 3, Geglu = 4 };

// shaders/quant/matvec.glsl's ROPE_KIND: whether and how the rows are rotated.
enum class RopeKind : uint32_t { None = 0, Plain = 1, WithFactors = 2 };


}  // namespace

// Matrix x vector, with what it fuses: the addend, x's norm, swiglu or geglu, rope
// and the store into a cache.
MatvecDispatch matvec_dispatch(const FusedMatvec& f, Recorder& rec) {
    const Tensor &mm = *f.matmul, &w = *mm.src[0], &out = f.out();
    const Tensor& x = f.norm ? *f.norm->src[0] : f.glu ? *f.glu->src[0] : *mm.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(out);
    const uint32_t cols = std::min(uint32_t(x.ne[1]), kMatvecCols);
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
    const MatvecLaunch launch =
        matvec_launch(rec.device(), w.type, mm.param<ActivationPrecision>(), push.n, push.k, cols, f.rope != nullptr,
                      {uint32_t(addend != nullptr), uint32_t(prologue), uint32_t(rope), uint32_t(f.store != nullptr),
                       uint32_t(f16)});
    return {launch,
            push,
            {bw, bx, ba, bx2, bpos, bids, bfactors},
            {by, by, by, by},
            groups_of(push.n, launch.group_rows),
            push.col_groups * uint32_t(x.ne[2] * x.ne[3])};
}

void record_matvec(const FusedMatvec& f, Recorder& rec) { matvec_dispatch(f, rec).record(rec); }

namespace {

// The tensor-core kernel for weights w: workgroup-scope matrices where the
// device has them, else subgroup ones; nullopt where neither runs.
std::optional<CoopLaunch> tensor_core_launch(VulkanDevice& device, const Tensor& w, const BoundTensor& bw) {
    if (auto wide = workgroup_coopmat_launch(device, w, bw)) return wide;
    return coopmat_launch(device, w, bw);
}

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
    if (const auto coop = tensor_core_launch(rec.device(), w, bw)) {
        MatmulPush push = matmul_push(coop->bn);
        const HalfCopy x16 = record_half_copy(x, rec);
        push.x = x16.rows;
        // Binding 2 is matmul_id's route (EXPERTS), unread here.
        rec.dispatch(coop->shader, coop->spec, {bw, x16.binding, x16.binding}, {by}, push, groups_of(push.n, coop->bm),
                     push.col_groups * batches);
    } else {
        const bool cpu = rec.device().info().on_host_cpu;
        const Tile& large = cpu ? kTileOnCpu : kTile;
        const uint64_t tiles = groups_of(uint32_t(w.ne[1]), large.bm) * groups_of(uint32_t(x.ne[1]), large.bn) * batches;
        const Tile& t = tiles >= kSmallGridTiles ? large : cpu ? kSmallTileOnCpu : kSmallTile;
        const MatmulPush push = matmul_push(t.bn);
        rec.dispatch(weight_shader("matmul", w.type), {t.group(), t.bm, t.bn, t.bk, t.tm, t.tn}, {bw, bx, bx}, {by}, push,
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
    if (fused_matvec(y) || !tensor_core_launch(rec.device(), w, bind_blocks(rec, w))) return nullptr;
    return y.src[1];
}

}  // namespace

const VulkanKernel kMatmul{&ops::kMatmul, supports, record, half_input};

namespace {

[[maybe_unused]] const bool registered = register_kernel(kMatmul);

}  // namespace

}  // namespace tessera::vkk
