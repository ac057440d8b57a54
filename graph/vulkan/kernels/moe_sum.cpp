// moe_sum (shaders/moe_sum.comp): one invocation per value of the output,
// a token's row split over workgroups as the elementwise kernels split it.
// With an inlined moe_weights (and router softmax) it computes the weights
// itself; inlined into the residual add, the add records it with the
// residual; of an inlined down matmul_id, it is that matvec, summing in its
// last workgroups (moe_fusion.hpp, moe_matvec.hpp).
#include <algorithm>
#include <bit>

#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/kernels/moe_matvec.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/moe_sum.hpp"
#include "ops/moe_weights.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;
static_assert(kGroup == kRouterGroup, "a fused router softmax reduces with the softmax kernel's workgroup");

struct Push {
    uint32_t d, k, n;
    uint32_t y_first, y_nb1, y_nb2;
    uint32_t w_first, w_nb1;  // an inlined moe_weights': its probabilities or logits
    uint32_t o_first, o_nb1;
    uint32_t a_first = 0, a_nb1 = 0;      // the addend
    uint32_t ids_first = 0, ids_nb1 = 0;  // an inlined moe_weights' ids
    uint32_t n_expert = 0;                // an inlined softmax's row
    float scale = 1;                      // and its scale
};

bool supports(const Tensor& out) { return dense_rows(out, 4); }  // y and w: dense rows (ops/moe_sum.cpp)

void record(const Tensor& out, Recorder& rec) { record_moe_sum(out, nullptr, out, rec); }

const VulkanKernel kMoeSum{&ops::kMoeSum, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kMoeSum);

}  // namespace

void record_moe_sum(const Tensor& sum, const Tensor* addend, const Tensor& out, Recorder& rec) {
    const Tensor& y = *sum.src[0];
    if (y.inlined) {  // the down matmul_id (moe_fusion.hpp): the sum in its last workgroups
        if (record_expert_sum(sum, addend, out, rec)) return;
        expert_matvec_dispatch(y, rec).record(rec);
    }
    const Tensor* weights = sum.src[1]->inlined ? sum.src[1] : nullptr;  // a moe_weights
    const RouterSource router = router_source(weights ? *weights->src[0] : *sum.src[1]);
    const Tensor* logits = weights && router.logits ? router.tensor : nullptr;
    const Tensor& w = weights ? *router.tensor : *sum.src[1];
    const BoundTensor by = rec.bind(y), bw = rec.bind(w), bo = rec.bind(out);
    const BoundTensor bids = weights ? rec.bind(*weights->src[1]) : bw, ba = addend ? rec.bind(*addend) : bw;
    Push push{uint32_t(out.ne[0]), uint32_t(y.ne[1]),     uint32_t(out.ne[1]), by.first(4),
              uint32_t(y.nb[1] / 4), uint32_t(y.nb[2] / 4), bw.first(4),         uint32_t(w.nb[1] / 4),
              bo.first(4),         uint32_t(out.nb[1] / 4)};
    if (addend) {
        push.a_first = ba.first(4);
        push.a_nb1 = uint32_t(addend->nb[1] / 4);
    }
    uint32_t normalize = 0;
    if (weights) {
        push.ids_first = bids.first(4);
        push.ids_nb1 = uint32_t(weights->src[1]->nb[1] / 4);
        normalize = weights->param<MoeWeightsParams>().normalize;
    }
    if (logits) {
        push.n_expert = uint32_t(logits->ne[0]);
        push.scale = router.scale;
    }
    // About 4 values per invocation, so that one token's row spreads over several compute units.
    const uint32_t parts = uint32_t(std::clamp<int64_t>((out.ne[0] + 4 * kGroup - 1) / (4 * kGroup), 1, 65535));
    rec.dispatch("moe_sum",
                 {kGroup, normalize, std::bit_cast<uint32_t>(kMoeWeightSumFloor), uint32_t(logits != nullptr),
                  uint32_t(weights != nullptr), uint32_t(addend != nullptr)},
                 {by, bw, bids, ba}, {bo}, push, push.n, parts);
}

}  // namespace tessera::vkk
