// softmax (shaders/softmax.comp, softmax_causal.comp with positions): one
// workgroup per row; first the matvec of its logits where that is inlined.
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/softmax.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    RowShape rows;
    RowLayout x;
    RowLayout y;
    uint32_t pos_first;
    float scale;
};

bool supports(const Tensor&) { return true; }  // every softmax: F32 rows, I32 positions

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    // A router's matvec inlined for a topk that could not take it
    // (moe_fusion.hpp): this records it, as it stores its logits.
    if (x.inlined) record_matvec(*fused_matvec(x), rec);
    const bool causal = y.src.size() > 1;
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const BoundTensor bpos = causal ? rec.bind(*y.src[1]) : BoundTensor{};
    const Push push{row_shape(y), row_layout(x, bx, 4), row_layout(y, by, 4), bpos.first(4),
                    y.param<SoftmaxParams>().scale};
    if (causal)
        rec.dispatch("softmax_causal", {kGroup}, {bx, bpos}, {by}, push, push.rows.nrows);
    else
        rec.dispatch("softmax", {kGroup}, {bx}, {by}, push, push.rows.nrows);
}

const VulkanKernel kSoftmax{&ops::kSoftmax, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kSoftmax);

}  // namespace

}  // namespace tessera::vkk
