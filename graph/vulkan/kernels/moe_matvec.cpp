#include "graph/vulkan/kernels/moe_matvec.hpp"

#include <bit>

#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "ops/moe_weights.hpp"
#include "ops/softmax.hpp"

namespace tessera::vkk {

namespace {

// shaders/matvec_moe.glsl's specialization constants and their values.
constexpr uint32_t kEpilogueConstant = 11, kWeightsConstant = 12, kSumAddendConstant = 13, kSumFloorConstant = 14;
constexpr uint32_t kRouterTopk = 1, kExpertSum = 2;
constexpr uint32_t kWeightsStored = 0, kWeightsOfProbs = 1, kWeightsNormalized = 2;

}  // namespace

void record_router_topk(const Tensor& topk, Recorder& rec) {
    const Tensor& softmax = *topk.src[0];
    MatvecDispatch d = matvec_dispatch(*fused_matvec(*softmax.src[0]), rec);
    const BoundTensor ids = rec.bind(topk);
    // shaders/matvec_moe.glsl's ROUTER_TOPK push constants.
    d.push.ids_first = ids.first(4);
    d.push.y_nb_head = uint32_t(topk.nb[1] / 4);
    d.push.dst_ne1 = uint32_t(topk.ne[0]);
    d.push.freq_scale = softmax.param<SoftmaxParams>().scale;
    d.writes[1] = ids;
    d.writes[2] = rec.counters(d.push.col_groups);
    set_spec(d.launch.spec, kEpilogueConstant, kRouterTopk);
    d.record(rec);
}

bool record_expert_sum(const Tensor& sum, const Tensor* addend, const Tensor& out, Recorder& rec) {
    const Tensor &down = *sum.src[0], &weights = *sum.src[1];
    const Tensor* source = &weights;
    uint32_t mode = kWeightsStored;
    if (weights.inlined) {  // a moe_weights: of the router's probabilities at the ids
        const RouterSource router = router_source(*weights.src[0]);
        if (router.logits || weights.src[1] != down.src[2]) return false;
        source = router.tensor;
        mode = weights.param<MoeWeightsParams>().normalize ? kWeightsNormalized : kWeightsOfProbs;
    }
    MatvecDispatch d = expert_matvec_dispatch(down, rec);
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
    set_spec(d.launch.spec, kEpilogueConstant, kExpertSum);
    set_spec(d.launch.spec, kWeightsConstant, mode);
    set_spec(d.launch.spec, kSumAddendConstant, addend != nullptr);
    set_spec(d.launch.spec, kSumFloorConstant, std::bit_cast<uint32_t>(kMoeWeightSumFloor));
    d.record(rec);
    return true;
}

}  // namespace tessera::vkk
