// moe_sum (shaders/moe_sum.comp): one invocation per value of the output,
// a token's row split over workgroups as the elementwise kernels split it.
#include <algorithm>

#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/moe_sum.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    uint32_t d, k, n;
    uint32_t y_first, y_nb1, y_nb2;
    uint32_t w_first, w_nb1;
    uint32_t o_first, o_nb1;
};

bool supports(const Tensor& out) { return dense_rows(out, 4); }  // y and w: dense rows (ops/moe_sum.cpp)

void record(const Tensor& out, Recorder& rec) {
    const Tensor &y = *out.src[0], &w = *out.src[1];
    const BoundTensor by = rec.bind(y), bw = rec.bind(w), bo = rec.bind(out);
    const Push push{uint32_t(out.ne[0]), uint32_t(y.ne[1]),      uint32_t(out.ne[1]),
                    by.first(4),         uint32_t(y.nb[1] / 4),  uint32_t(y.nb[2] / 4),
                    bw.first(4),         uint32_t(w.nb[1] / 4),  bo.first(4),
                    uint32_t(out.nb[1] / 4)};
    // About 4 values per invocation, so that one token's row spreads over several compute units.
    const uint32_t parts = uint32_t(std::clamp<int64_t>((out.ne[0] + 4 * kGroup - 1) / (4 * kGroup), 1, 65535));
    rec.dispatch("moe_sum", {kGroup}, {by, bw}, {bo}, push, push.n, parts);
}

const VulkanKernel kMoeSum{&ops::kMoeSum, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kMoeSum);

}  // namespace

}  // namespace tessera::vkk
