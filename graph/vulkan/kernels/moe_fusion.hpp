// The nodes of a mixture-of-experts feed-forward block (models/layer.cpp,
// Layer::moe_ffn) that the Vulkan backend computes inside the kernels of
// their readers (VulkanBackend::inlines), so that for a token in generation
//   ffn rms_norm -> router matmul -> softmax -> topk -> moe_weights
//   gate, up matmul_id -> swiglu -> down matmul_id -> moe_sum -> add
// is 4 dispatches instead of 11, in 3 levels instead of 9:
//   - the rms_norm, read by the router's matvec and (one row per token) by
//     gate and up, is computed by each of them from its own loads of x
//     (shaders/quant/matvec.glsl, PROLOGUE NORM or NORM_GAIN with EXPERTS),
//     as the dense matvecs compute theirs (matvec_fusion.hpp);
//   - the router's matvec, read only by the softmax, is recorded by the
//     topk that ranks the softmax: the last workgroup of the matvec to
//     finish a token computes the softmax, writes the probabilities over the
//     logits and ranks them (moe_matvec.hpp); the matvec is inlined but
//     stored (Backend::stores_inlined), its storage then holding the
//     probabilities, which the moe_weights read;
//   - the router's softmax, read by a topk and a moe_weights, is computed by
//     them: by the topk's matvec as above; without it (logits the block
//     does not compute) from the logits (shaders/moe_router.glsl), in the
//     softmax kernel's steps: the same probabilities;
//   - the moe_weights, read by the moe_sum, is computed by the kernel that
//     sums (into shared memory: shaders/matvec_moe.glsl, moe_sum.comp's
//     WEIGHTS);
//   - the swiglu, read by the down matmul_id of a few tokens, is the down
//     matvec's prologue (shaders/quant/matvec.glsl, SWIGLU with EXPERTS);
//   - the down matmul_id, read only by the moe_sum, is recorded by the
//     moe_sum's kernel: the last workgroup of a token's slots to finish a
//     block of rows weighs that block of every slot (moe_matvec.hpp);
//     stored, as the rows that workgroup reads;
//   - the moe_sum, read only by the residual add, is recorded by that add
//     with the residual as its addend (matvec_moe.glsl's SUM_ADDEND, or
//     moe_sum.comp's ADDEND);
//   - the layer's o projection (its residual h' the addend), read by that
//     norm and by the residual add, is recorded by the topk too
//     (Backend::computed_later): its workgroups add up their rows' shares of
//     the router's logits, which are linear in h', and the last one ranks
//     them (matvec_moe.glsl's ROUTER_PARTIALS); stored, for the experts and
//     the residual. The router takes no level of its own: a Mixtral layer
//     (8 experts) is 8 dispatches in 5 levels. For routers of at most
//     kMaxRoutedExperts; with more, the topk records the o projection and
//     beside it a dispatch that finds the router's logits from the o
//     projection's inputs (moe_router_split.hpp), the down matvec's last
//     workgroups then scaling them by the norm of h'.
// With the attention's fusions (matvec_fusion.hpp, head_norm_rope.hpp) a
// Qwen3-30B-A3B layer (128 experts) is 9 dispatches in 5 levels per token
// (9 in 6 with the router in a level of its own, 11 in 7 before the head
// norms went into attention and k's matvec: docs/vulkan.md): 13 in 9 with
// the topk and the sum dispatches of their own, 17 in 12 before the norm
// here and the q/k norms were inlined, 23 in 16 unfused
// (docs/vulkan.md#mixture-of-experts; the topk found by each of its readers,
// one level less, was slower on an H200 and is not done). As with
// matvec_fusion.hpp, the graph, the CPU and the reference are unchanged, and
// ExecutorOptions::fuse off runs every node on its own.
#pragma once

#include <cstdint>
#include <span>

#include "graph/backend.hpp"
#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// Rows of a router the fused kernels take (shaders/topk.comp's MAX_N) and
// chosen experts per token (shaders/moe_sum.comp's MAX_K).
constexpr int64_t kMaxExperts = 1024, kMaxChosen = 64;
// The most experts whose router runs in the o projection's level
// (computed_later): each of the last workgroup's subgroups sums one or two
// experts' partial logits. With many (Qwen3-30B-A3B's 128: 129 x 64 partial
// sums for one workgroup) that join costs more than the level it saves
// (docs/vulkan.md#mixture-of-experts).
constexpr int64_t kMaxRoutedExperts = 16;
// softmax.cpp's workgroup: the fused kernels reduce a row of logits with it,
// so that each probability comes out as the softmax node's.
constexpr uint32_t kRouterGroup = 256;

bool moe_inlines(const Tensor& node, std::span<Tensor* const> readers);
// Of the nodes moe_inlines inlines, those stored all the same
// (Backend::stores_inlined): the router's matvec and the down matmul_id.
bool moe_stores(const Tensor& node, std::span<Tensor* const> readers);
// Backend::computed_later: a MoE layer's o projection, which the topk that
// ranks its router records, computing the router's logits from its rows.
bool moe_computed_later(const Tensor& node, std::span<Tensor* const> readers, const Backend::ReadersOf& readers_of);

// The rms_norm that `router` reads where it is an inlined router matvec
// that the topk ranking it records with its o projection (computed later:
// moe_computed_later); else (any other node too) nullptr.
const Tensor* routed_router_norm(const Tensor& router);
// The same where that router runs beside the o projection, split
// (moe_router_split.hpp: more than kMaxRoutedExperts experts); its storage
// then holds the logits before the norm's scale.
const Tensor* split_router_norm(const Tensor& router);

// Where the kernels that read the router's probabilities `probs` (a softmax)
// find them: in probs itself; for an inlined softmax in its logits, of which
// they compute it (`logits`: moe_router.glsl's ROUTER_SOFTMAX, with the
// softmax's `scale`); or, where the router's matvec is inlined too, in the
// matvec's storage, where its topk wrote them over the logits.
struct RouterSource {
    const Tensor* tensor;
    bool logits;
    float scale;
};
RouterSource router_source(const Tensor& probs);

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
