// The matvecs of a mixture-of-experts block in generation that finish, in
// their last workgroup, work a dispatch and a level of its own would
// otherwise do (shaders/matvec_moe.glsl; which nodes: moe_fusion.hpp):
//   - the router's matvec, recorded by the topk that ranks its softmax:
//     the last workgroup of a token computes the softmax, writes the
//     probabilities over the logits and ranks them;
//   - the down matmul_id, recorded by the moe_sum that weighs it (or by the
//     residual add the moe_sum is inlined into): the last workgroup of a
//     block of rows of a token weighs that block of every slot, plus the
//     residual.
#pragma once

#include "graph/tensor.hpp"
#include "graph/vulkan/kernels/matmul_variants.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// matmul_id y's matvec (matmul_id.cpp): a batch per slot.
MatvecDispatch expert_matvec_dispatch(const Tensor& y, Recorder& rec);

// Records `topk`, which ranks an inlined softmax of an inlined router
// matvec, as that matvec.
void record_router_topk(const Tensor& topk, Recorder& rec);

// Records moe_sum `sum` of an inlined down matmul_id as that matmul_id,
// writing `out`: the sum, or with `addend` the add the sum is inlined into.
// Where the weights come from logits alone (the router's matvec not
// inlined: moe_sum.comp computes their softmax), records nothing and
// returns false.
bool record_expert_sum(const Tensor& sum, const Tensor* addend, const Tensor& out, Recorder& rec);

}  // namespace tessera::vkk
