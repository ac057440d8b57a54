// The nodes of a mixture-of-experts feed-forward block (models/layer.cpp,
// Layer::moe_ffn) that the Vulkan backend computes inside the kernels of
// their readers (VulkanBackend::inlines), so that for a token in generation
//   ffn rms_norm -> router matmul -> softmax -> topk -> moe_weights
//   gate, up matmul_id -> swiglu -> down matmul_id -> moe_sum -> add
// is 6 dispatches instead of 11, in 5 levels instead of 9:
//   - the rms_norm, read by the router's matvec and (one row per token) by
//     gate and up, is computed by each of them from its own loads of x
//     (shaders/quant/matvec.glsl, PROLOGUE NORM or NORM_GAIN with EXPERTS),
//     as the dense matvecs compute theirs (matvec_fusion.hpp);
//   - the router's softmax, read by a topk and a moe_weights, is computed by
//     each of them from the logits (shaders/moe_router.glsl), in the
//     softmax kernel's steps: the same probabilities;
//   - the moe_weights, read by the moe_sum, is computed by each of its
//     workgroups into shared memory (shaders/moe_sum.comp, WEIGHTS);
//   - the swiglu, read by the down matmul_id of a few tokens, is the down
//     matvec's prologue (shaders/quant/matvec.glsl, SWIGLU with EXPERTS);
//   - the moe_sum, read only by the residual add, is recorded by that add
//     with the residual as its addend (moe_sum.comp, ADDEND).
// With the attention's fusions (matvec_fusion.hpp, head_norm_rope.hpp) a
// Qwen3-30B-A3B layer is 13 dispatches in 9 levels per token, 17 in 12
// before the norm here and the q/k norms were inlined, 23 in 16 unfused
// (docs/vulkan.md#mixture-of-experts; the topk found by its readers, one
// level less, was slower on an H200 and is not done). As with matvec_fusion.hpp, the
// graph, the CPU and the reference are unchanged, and
// ExecutorOptions::fuse off runs every node on its own.
#pragma once

#include <cstdint>
#include <span>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// Rows of a router the fused kernels take (shaders/topk.comp's MAX_N) and
// chosen experts per token (shaders/moe_sum.comp's MAX_K).
constexpr int64_t kMaxExperts = 1024, kMaxChosen = 64;
// softmax.cpp's workgroup: the fused kernels reduce a row of logits with it,
// so that each probability comes out as the softmax node's.
constexpr uint32_t kRouterGroup = 256;

bool moe_inlines(const Tensor& node, std::span<Tensor* const> readers);

// The logits of `probs` when it is an inlined softmax (moe_router.glsl's
// ROUTER_SOFTMAX), else nullptr.
const Tensor* inlined_softmax_input(const Tensor& probs);

// Records moe_sum node `sum` (moe_sum.cpp), its weights computed in it when
// they are an inlined moe_weights, writing `out`: the sum itself, or an
// inlined sum's add with the add's other operand `addend`.
void record_moe_sum(const Tensor& sum, const Tensor* addend, const Tensor& out, Recorder& rec);

// The moe_sum an add records (it reads the sum inlined), and its other operand.
struct MoeSumAdd {
    const Tensor* sum = nullptr;
    const Tensor* addend = nullptr;
};
MoeSumAdd moe_sum_of_add(const Tensor& add);

}  // namespace tessera::vkk
