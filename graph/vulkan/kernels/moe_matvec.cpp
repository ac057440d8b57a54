#include "graph/vulkan/kernels/moe_matvec.hpp"

#include <bit>

#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/kernels/moe_router_split.hpp"
#include "ops/matmul.hpp"
#include "ops/moe_weights.hpp"
#include "ops/rms_norm.hpp"
#include "ops/softmax.hpp"

namespace tessera::vkk {

namespace {

// shaders/matvec_moe.glsl's specialization constants and their values.
constexpr uint32_t kWeightsConstant = 12, kSumAddendConstant = 13, kSumFloorConstant = 14, kRouterGainConstant = 15,
                   kEarlyWeightsConstant = 20;
constexpr uint32_t kWeightsStored = 0, kWeightsOfProbs = 1, kWeightsNormalized = 2, kWeightsOfLogits = 3,
                   kWeightsOfLogitsNormalized = 4;

// The ranking's push constants (shaders/matvec_moe.glsl's ROUTER_TOPK and
// ROUTER_PARTIALS): the topk's ids, their count, the softmax's scale.
void rank_into(MatvecDispatch& d, const Tensor& topk, Recorder& rec) {
    const BoundTensor ids = rec.bind(topk);
    d.push.ids_first = ids.first(4);
    d.push.y_nb_head = uint32_t(topk.nb[1] / 4);
    d.push.dst_ne1 = uint32_t(topk.ne[0]);
    d.push.freq_scale = topk.src[0]->param<SoftmaxParams>().scale;
    d.writes[1] = ids;
}

// The o projection `o` that the router's norm reads (moe_fusion.hpp's
// computed_later), its router's logits found from its rows
// (ROUTER_PARTIALS): the probabilities into the router matvec's storage,
// over which ROUTER_TOPK would write them, and the topk's ids.
void record_routed_residual(const Tensor& topk, const Tensor& router, const Tensor& norm, const Tensor& o,
                            Recorder& rec) {
    MatvecDispatch d = matvec_dispatch(*fused_matvec(o), rec);
    rank_into(d, topk, rec);
    const BoundTensor weights = rec.bind(*router.src[0]), probs = rec.bind(router);
    const uint32_t experts = uint32_t(router.ne[0]), cols = d.launch.spec[2];
    d.push.x2_nb1 = experts;
    d.push.rope_firsts = weights.first(4);
    d.push.rot = probs.first(4);
    d.push.eps = norm.param<RmsNormParams>().eps;
    d.reads[4] = weights;
    const bool gain = norm.src.size() > 1;
    if (gain) {
        d.reads[3] = rec.bind(*norm.src[1]);
        d.push.x2_first = d.reads[3].first(4);
    }
    d.writes[3] = probs;
    // The counters, then a share of each expert's logit (and of the sum of
    // squares) per token and group of rows.
    d.writes[2] = rec.counters(uint32_t(d.push.col_groups + uint64_t(d.push.col_groups) * cols * d.groups * (experts + 1)));
    set_epilogue(d.launch, MatvecEpilogue::RouterPartials);
    set_spec(d.launch.spec, kRouterGainConstant, gain);
    d.record(rec);
}

}  // namespace

void record_router_topk(const Tensor& topk, Recorder& rec) {
    const Tensor &softmax = *topk.src[0], &router = *softmax.src[0];
    if (const Tensor* norm = routed_router_norm(router))
        return split_router_norm(router) ? record_split_router(topk, router, *norm, *norm->src[0], rec)
                                         : record_routed_residual(topk, router, *norm, *norm->src[0], rec);
    MatvecDispatch d = matvec_dispatch(*fused_matvec(router), rec);
    rank_into(d, topk, rec);
    d.writes[2] = rec.counters(d.push.col_groups);
    set_epilogue(d.launch, MatvecEpilogue::RouterTopk);
    d.record(rec);
}

bool record_expert_sum(const Tensor& sum, const Tensor* addend, const Tensor& out, Recorder& rec) {
    const Tensor &down = *sum.src[0], &weights = *sum.src[1];
    const Tensor* source = &weights;
    uint32_t mode = kWeightsStored;
    const Tensor* norm = nullptr;  // of a split router's h'
    if (weights.inlined) {  // a moe_weights: of the router's probabilities at the ids
        const RouterSource router = router_source(*weights.src[0]);
        if (router.logits || weights.src[1] != down.src[2]) return false;
        source = router.tensor;
        norm = split_router_norm(*source);
        const bool normalize = weights.param<MoeWeightsParams>().normalize;
        mode = norm ? (normalize ? kWeightsOfLogitsNormalized : kWeightsOfLogits)
                    : (normalize ? kWeightsNormalized : kWeightsOfProbs);
    }
    MatvecDispatch d = expert_matvec_dispatch(down, rec);
    if (norm) {  // the split router's logits (moe_router_split.hpp), scaled by 1 / rms(h') here
        const Tensor& h = *norm->src[0];
        d.reads[4] = rec.bind(h);
        d.push.x2_nb1 = d.reads[4].first(4);
        d.push.y_nb_head = uint32_t(h.nb[1] / 4);
        d.push.eps = norm->param<RmsNormParams>().eps;
        d.push.freq_scale = weights.src[0]->param<SoftmaxParams>().scale;
    }
    const BoundTensor bw = rec.bind(*source), bo = rec.bind(out);
    d.reads[6] = bw;
    d.writes[1] = bo;
    d.writes[2] = rec.counters(uint32_t(d.groups * uint64_t(down.ne[2])));
    // shaders/matvec_moe.glsl's EXPERT_SUM push constants.
    d.push.a.nb2 = bw.first(4);
    d.push.a.nb3 = uint32_t(source->nb[1] / 4);
    d.push.rope_firsts = bo.first(4);
    d.push.rot = uint32_t(out.nb[1] / 4);
    if (addend) {
        d.reads[2] = rec.bind(*addend);
        d.push.a.first = d.reads[2].first(4);
        d.push.a.nb1 = uint32_t(addend->nb[1] / 4);
    }
    set_epilogue(d.launch, MatvecEpilogue::ExpertSum);
    set_spec(d.launch.spec, kWeightsConstant, mode);
    set_spec(d.launch.spec, kSumAddendConstant, addend != nullptr);
    set_spec(d.launch.spec, kSumFloorConstant, std::bit_cast<uint32_t>(kMoeWeightSumFloor));
    // The first subgroup finds the weights while x is staged (its invocations
    // j < k, one per slot), not the last workgroup after the count
    // (docs/vulkan.md#mixture-of-experts).
    if (mode == kWeightsOfLogitsNormalized && d.launch.staged && down.ne[1] <= kStagedMinSubgroup)
        set_spec(d.launch.spec, kEarlyWeightsConstant, 1);
    d.record(rec);
    return true;
}

}  // namespace tessera::vkk
