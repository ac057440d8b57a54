// softmax (shaders/softmax.comp, softmax_causal.comp with positions): one
// workgroup per row.
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/registry.hpp"
#include "ops/softmax.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    uint32_t ne0, ne1, ne2, nrows;
    RowLayout x;
    RowLayout y;
    uint32_t pos_first;
    float scale;
};

bool supports(const Tensor&) { return true; }  // every softmax: F32 rows, I32 positions

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const bool causal = y.src.size() > 1;
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const BoundTensor bpos = causal ? rec.bind(*y.src[1]) : BoundTensor{};
    const Push push{uint32_t(y.ne[0]), uint32_t(y.ne[1]), uint32_t(y.ne[2]), uint32_t(y.nrows()),
                    row_layout(x, bx, 4), row_layout(y, by, 4), bpos.first(4), y.param<SoftmaxParams>().scale};
    uint32_t gx, gy;
    rec.split_groups(uint64_t(y.nrows()), gx, gy);
    if (causal)
        rec.dispatch("softmax_causal", {kGroup}, {bx, bpos}, {by}, push, gx, gy);
    else
        rec.dispatch("softmax", {kGroup}, {bx}, {by}, push, gx, gy);
}

}  // namespace

const VulkanKernel kSoftmax{"softmax", supports, record};

}  // namespace tessera::vkk
