// matmul_id (ops/matmul_id.hpp): y[:, j, t] = W[:, :, ids[j, t]] x[:, j or 0, t]
// with the expert ids read on the GPU, so that a recorded command buffer
// (one per token in generation) serves whatever experts the router picks.
//
// Up to kMatvecMaxTokens tokens: the weight type's matvec
// (shaders/quant/matvec.glsl, EXPERTS) with one batch per slot, whose
// workgroups read the slot's expert id and offset W's rows by it: only the
// chosen experts' rows are read (a slot per expert a token chooses).
// An inlined swiglu (moe_fusion.hpp: the down projection's x) is the
// matvec's SWIGLU prologue: gate's and up's values at the slot's offset;
// an inlined rms_norm (gate's and up's x) its NORM or NORM_GAIN prologue.
// More tokens: shaders/matmul_id_route.comp lists the slots of each expert
// in scratch memory (Recorder::derived_aside: the matmul_ids reading one
// set of ids share it), then a matmul with EXPERTS gives each expert a batch
// whose columns are its slots: each chosen expert's rows are read once per
// tile of BN of its slots, and an expert no token chose costs a workgroup
// that returns at once. The matmul is the subgroup tensor-core one
// (shaders/quant/matmul_coopmat.glsl, x as an fp16 copy) where the device
// and the build have it for such weights (coopmat_launch; the dense matmul's
// workgroup-scope kernel is not used for experts), else the tiled one
// (shaders/quant/matmul.glsl).
#include <cstdint>

#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matmul_variants.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/moe_matvec.hpp"
#include "graph/vulkan/kernels/weight_shaders.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/shader_library.hpp"
#include "ops/matmul_id.hpp"
#include "ops/rms_norm.hpp"

namespace tessera::vkk {

namespace {

// shaders/matmul_id_route.comp's MAX_EXPERTS (its counts in shared memory).
constexpr int64_t kRouteMaxExperts = 1024;
constexpr uint32_t kRouteGroup = 256;
// matvec.glsl's EXPERTS; constants 8 and 9 belong to the staged variants.
constexpr uint32_t kExpertsConstant = 10;
// matvec.glsl's PROLOGUE: NORM, NORM_GAIN, SWIGLU.
constexpr uint32_t kNormPrologue = 1, kNormGainPrologue = 2, kSwigluPrologue = 3;
// An expert matvec of at least kWideExpertRows rows over its slots, unless
// swiglu is inside it (Mixtral's gate and up, 2 x 14336 rows a token, not
// its down), takes kWideStagedRows rows per subgroup: each workgroup stages
// (and norms) x once for twice the rows, and the dispatch keeps enough
// workgroups to fill a large GPU; Qwen3-30B-A3B's gate and up (8 x 768) do
// not (docs/vulkan.md#mixture-of-experts).
constexpr uint64_t kWideExpertRows = 16384;
constexpr uint32_t kWideStagedRows = 4;
// Every expert matvec's workgroup takes its subgroups' rows in kExpertPasses
// turns, staging (and norming) x once for twice the rows, except a down
// projection (swiglu inside) that would be left fewer than
// kPassedDownGroups workgroups: Mixtral's (8192 rows a token) needs its 256
// to stream, Qwen3-30B-A3B's (16384 rows of 768 values) does not
// (docs/measured-choices.md#passes-of-expert-matvecs).
constexpr uint32_t kExpertPasses = 2;
constexpr uint64_t kPassedDownGroups = 256;
// A down projection (swiglu inside) of rows of at least kWideStagingValues
// values (Mixtral's 14336) takes workgroups of kWideStagingGroup
// invocations instead of kStagedGroup: staging swiglu(gate, up) took each
// invocation 7 pieces in turn, now 3 or 4, and half the workgroups stage it
// (docs/measured-choices.md#workgroups-of-long-down-projections).
constexpr uint32_t kWideStagingValues = 8192, kWideStagingGroup = 1024;

struct RoutePush {  // shaders/matmul_id_route.comp
    uint32_t ids_first, n_slots, n_expert, route_first;
};

// The push constants both variants share: slot s = j + slots * t is batch
// s of [k, 1, slots, n] x (x's plane stride 0 when a token has one row for
// all its slots) and y; the expert ids (or the route) at ids_first, the
// count of experts in dst_ne1.
MatmulPush slot_push(const Tensor& y, const BoundTensor& bw, const BoundTensor& bx, const BoundTensor& by,
                     const BoundTensor& bids) {
    const Tensor &w = *y.src[0], &x = *y.src[1];
    const uint32_t block = ggml_type_traits(w.type).block_bytes;
    return {.k = uint32_t(w.ne[0]),
            .n = uint32_t(w.ne[1]),
            .m = 1,
            .ne2 = uint32_t(y.ne[1]),
            .col_groups = 1,
            .w_first = bw.first(block),
            .w_nb1 = uint32_t(w.nb[1] / block),
            .x = {bx.first(4), 0, x.ne[1] == 1 ? 0 : uint32_t(x.nb[1] / 4), uint32_t(x.nb[2] / 4)},
            .y = {by.first(4), 0, uint32_t(y.nb[1] / 4), uint32_t(y.nb[2] / 4)},
            .a = {},
            .ids_first = bids.first(4),
            .dst_ne1 = uint32_t(w.ne[2])};
}

// What an inlined x of a matvec is (moe_fusion.hpp): swiglu(gate, up) of
// the down projection, or the rms_norm that a reshape to one row per token
// shows to gate and up.
struct SlotX {
    const Tensor* glu = nullptr;
    const Tensor* norm = nullptr;
};

SlotX inlined_x(const Tensor& y) {
    const Tensor& x = *y.src[1];
    if (x.inlined) return {.glu = &x};
    if (x.is_view() && x.src[0]->inlined && x.src[0]->op == &ops::kRmsNorm) return {.norm = x.src[0]};
    return {};
}

}  // namespace

MatvecDispatch expert_matvec_dispatch(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &ids = *y.src[2];
    const auto [glu, norm] = inlined_x(y);
    // x laid out as y.src[1]: a norm's source has the norm's (and its view's) rows.
    const Tensor& x = glu ? *glu->src[0] : norm ? *norm->src[0] : *y.src[1];
    const BoundTensor bw = bind_blocks(rec, w), bx = rec.bind(x), by = rec.bind(y), bids = rec.bind(ids);
    const bool gain = norm && norm->src.size() > 1;
    const BoundTensor bx2 = glu ? rec.bind(*glu->src[1]) : gain ? rec.bind(*norm->src[1]) : bx;
    MatmulPush push = slot_push(y, bw, bx, by, bids);
    push.x2_first = bx2.first(4);  // the gain, or up laid out as gate (matvec.glsl reads it at x's offsets)
    if (norm) push.eps = norm->param<RmsNormParams>().eps;
    const uint32_t prologue = glu ? kSwigluPrologue : gain ? kNormGainPrologue : norm ? kNormPrologue : 0;
    // No addend, no rope, no scatter; x plain, normed or swiglu(gate, up).
    MatvecLaunch launch =
        matvec_launch(rec.device(), w.type, y.param<ActivationPrecision>(), push.n, push.k, 1, false,
                      {0, prologue, 0, 0, 0});
    set_spec(launch.spec, kExpertsConstant, 1);
    if (glu && push.k >= kWideStagingValues)
        widen_staged_group(launch, rec.device(), push.k, kWideStagingGroup);
    const uint32_t z = uint32_t(y.ne[1] * y.ne[2]);
    if (!glu && uint64_t(push.n) * z >= kWideExpertRows) override_staged_rows(launch, rec.device(), kWideStagedRows);
    if (!glu || groups_of(push.n, kExpertPasses * launch.group_rows) * z >= kPassedDownGroups)
        set_staged_passes(launch, rec.device(), kExpertPasses);
    return {launch,
            push,
            {bw, bx, bx, bx2, bx, bids, bx},
            {by, by, by, by},
            groups_of(push.n, launch.group_rows),
            z};
}

namespace {

// Whether matmul_id records y with its grouped matmul (more tokens than
// its matvec takes).
bool grouped(const Tensor& y) { return y.ne[2] > kMatvecMaxTokens; }

void record_grouped(const Tensor& y, Recorder& rec) {
    const Tensor &w = *y.src[0], &x = *y.src[1], &ids = *y.src[2];
    const uint32_t n_expert = uint32_t(w.ne[2]), n_slots = uint32_t(y.ne[1] * y.ne[2]);
    const BoundTensor bw = bind_blocks(rec, w), by = rec.bind(y);
    const auto coop = coopmat_launch(rec.device(), w, bw);
    // x's fp16 copy first: it may take the scratch region, which the route,
    // aside, leaves as it is.
    const HalfCopy x16 = coop ? record_half_copy(x, rec) : HalfCopy{};
    const BoundTensor bids = rec.bind(ids);
    bool fresh = false;
    const BoundTensor route = rec.derived_aside(bids, uint64_t(n_expert) << 32 | n_slots,
                                                (uint64_t(n_expert) + 1 + n_slots) * 4, fresh);
    if (fresh)
        rec.dispatch("matmul_id_route", {kRouteGroup}, {bids}, {route},
                     RoutePush{bids.first(4), n_slots, n_expert, route.first(4)}, 1);
    if (coop) {
        MatmulPush push = slot_push(y, bw, rec.bind(x), by, route);
        // The copy's rows: a slot's (0 where the token has one row for all its slots), a token's.
        push.x = {x16.rows.first, 0, x.ne[1] == 1 ? 0 : x16.rows.nb1, x16.rows.nb2};
        std::vector<uint32_t> spec = coop->spec;
        set_spec(spec, 7, 1);  // EXPERTS
        rec.dispatch(coop->shader, spec, {bw, x16.binding, route}, {by}, push, groups_of(push.n, coop->bm), n_expert);
    } else {
        const BoundTensor bx = rec.bind(x);
        const MatmulPush push = slot_push(y, bw, bx, by, route);
        const Tile& t = rec.device().info().on_host_cpu ? kTileOnCpu : kTile;
        rec.dispatch(weight_shader("matmul", w.type), {t.group(), t.bm, t.bn, t.bk, t.tm, t.tn, 1}, {bw, bx, route},
                     {by}, push, groups_of(push.n, t.bm), n_expert);
    }
}

bool supports(const Tensor& y) {
    const Tensor &w = *y.src[0], &x = *y.src[1], &ids = *y.src[2];
    // The shaders dequantize 4 values at a time; the ids are read as one
    // array of slots.
    return find_shader(weight_shader("matvec", w.type)) && find_shader(weight_shader("matmul", w.type)) &&
           in_gpu_layout(w) && w.ne[0] % 4 == 0 && w.ne[2] <= kRouteMaxExperts && dense_rows(x, 4) &&
           dense_rows(y, 4) && ids.nb[1] == size_t(ids.ne[0]) * 4;
}

void record(const Tensor& y, Recorder& rec) {
    if (grouped(y))
        record_grouped(y, rec);
    else
        expert_matvec_dispatch(y, rec).record(rec);
}

// x, where the tensor-core matmul records the node.
const Tensor* half_input(const Tensor& y, Recorder& rec) {
    const Tensor& w = *y.src[0];
    if (!grouped(y) || !coopmat_launch(rec.device(), w, bind_blocks(rec, w))) return nullptr;
    return y.src[1];
}

const VulkanKernel kMatmulId{&ops::kMatmulId, supports, record, half_input};
[[maybe_unused]] const bool registered = register_kernel(kMatmulId);

}  // namespace

}  // namespace tessera::vkk
