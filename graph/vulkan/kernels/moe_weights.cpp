// moe_weights (shaders/moe_weights.comp): one invocation per token; of an
// inlined router softmax (moe_fusion.hpp), one workgroup per token.
#include <bit>

#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/moe_weights.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 64;

struct Push {
    uint32_t k, n;
    uint32_t probs_first, probs_nb1;
    uint32_t ids_first, ids_nb1;
    uint32_t w_first, w_nb1;
    uint32_t n_expert = 0;  // of an inlined softmax: its row
    float scale = 1;        // and its scale
};

bool supports(const Tensor& w) { return dense_rows(w, 4); }  // probs and ids: dense rows (ops/moe_weights.cpp)

void record(const Tensor& w, Recorder& rec) {
    const RouterSource router = router_source(*w.src[0]);
    const Tensor &probs = *router.tensor, &ids = *w.src[1];
    const BoundTensor bp = rec.bind(probs), bi = rec.bind(ids), bw = rec.bind(w);
    Push push{uint32_t(w.ne[0]),   uint32_t(w.ne[1]),         bp.first(4), uint32_t(probs.nb[1] / 4),
                    bi.first(4),         uint32_t(ids.nb[1] / 4),   bw.first(4), uint32_t(w.nb[1] / 4)};
    const uint32_t normalize = w.param<MoeWeightsParams>().normalize, floor = std::bit_cast<uint32_t>(kMoeWeightSumFloor);
    if (router.logits) {
        push.n_expert = uint32_t(probs.ne[0]);
        push.scale = router.scale;
        rec.dispatch("moe_weights", {kRouterGroup, normalize, floor, 1}, {bp, bi}, {bw}, push, push.n);
    } else {
        rec.dispatch("moe_weights", {kGroup, normalize, floor}, {bp, bi}, {bw}, push, (push.n + kGroup - 1) / kGroup);
    }
}

const VulkanKernel kMoeWeights{&ops::kMoeWeights, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kMoeWeights);

}  // namespace

}  // namespace tessera::vkk
