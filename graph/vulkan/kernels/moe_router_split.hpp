// A mixture-of-experts router of many experts in its o projection's level
// (shaders/moe_router_split.comp). Where the o projection's last workgroup
// would sum too many partial logits (more than kMaxRoutedExperts experts:
// moe_fusion.hpp), the router reads the o projection's inputs instead of
// its output: with h' = h + W_o a and the ffn norm's gain g, the router's
// logits before the norm's scale 1 / rms(h') are
//   z = K [h; a],  K = [W_r diag(g) | W_r diag(g) W_o],
// K computed once on the host from the three weights (F32, experts x
// (n_embd + the o projection's inputs) values). The topk records the o
// projection and, beside it in the same level, this dispatch, which ranks z
// (the norm's scale is positive, so z ranks as the softmax does); the down
// matvec's last workgroups weigh the slots from z and h'
// (matvec_moe.glsl's WEIGHTS_OF_LOGITS). A Qwen3-30B-A3B layer is 9
// dispatches in 5 levels instead of 6.
#pragma once

#include <vector>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// K for router weights `router_w` [n_embd, experts] (F32), the norm's gain
// `gain` (F32 [n_embd], or nullptr) and the o projection's weights `o_w`
// [n_a, n_embd] (any type with a dequantization): row e is W_r[e] * g, then
// (W_r[e] * g) W_o, summed in float.
std::vector<float> split_router_weights(const Tensor& router_w, const Tensor* gain, const Tensor& o_w);

// Records `topk` (of the softmax of router matvec `router`, reading `norm`
// of o projection `o`'s h') as o's matvec and the split router beside it.
void record_split_router(const Tensor& topk, const Tensor& router, const Tensor& norm, const Tensor& o,
                         Recorder& rec);

}  // namespace tessera::vkk
