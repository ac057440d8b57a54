#include "graph/vulkan/kernels/moe_fusion.hpp"

#include <algorithm>
#include <optional>

#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/add.hpp"
#include "ops/matmul.hpp"
#include "ops/matmul_id.hpp"
#include "ops/moe_sum.hpp"
#include "ops/moe_weights.hpp"
#include "ops/rms_norm.hpp"
#include "ops/softmax.hpp"
#include "ops/swiglu.hpp"
#include "ops/topk.hpp"

namespace tessera::vkk {

namespace {

bool all_of(std::span<Tensor* const> readers, auto&& pred) {
    return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](const Tensor* r) { return pred(*r); });
}

// Rows [n_expert, tokens] the fused kernels index by row stride only.
bool router_rows(const Tensor& t) { return dense_rows(t, 4) && t.ne[2] == 1 && t.ne[3] == 1; }

// A softmax without a mask over a router's rows, read by a topk (to rank)
// and a moe_weights (to weigh): both compute it from the logits. Of an
// inlined router matvec (router_matvec), the one topk that ranks it records
// that matvec, writing the probabilities over the logits, and every
// moe_weights reads the ids of that topk: they read the probabilities after it.
bool router_softmax(const Tensor& s, std::span<Tensor* const> readers) {
    if (!is(s, ops::kSoftmax) || s.src.size() != 1 || s.ne[0] > kMaxExperts || !router_rows(s) ||
        !router_rows(*s.src[0]) || !all_of(readers, [&](const Tensor& r) {
            return (is(r, ops::kTopk) || is(r, ops::kMoeWeights)) && r.src[0] == &s && dense_rows(r, 4);
        }))
        return false;
    if (!s.src[0]->inlined) return true;
    const auto topk = std::find_if(readers.begin(), readers.end(), [](const Tensor* r) { return is(*r, ops::kTopk); });
    return topk != readers.end() && std::all_of(readers.begin(), readers.end(), [&](const Tensor* r) {
               return r == *topk || (is(*r, ops::kMoeWeights) && r->src[1] == *topk);
           });
}

// A router's matvec read only by its softmax: stored all the same (its
// readers' kernels read the logits, or the probabilities written over them),
// and recorded by the topk that ranks the softmax, the topk in its last
// workgroup (moe_matvec.hpp); by the softmax's kernel where the softmax is
// not inlined after all.
bool router_matvec(const Tensor& m, std::span<Tensor* const> readers) {
    if (!is(m, ops::kMatmul) || m.src.size() != 2 || readers.size() != 1 || m.ne[1] > kMatvecMaxTokens ||
        !router_rows(m) || !kMatmul.supports(m))
        return false;
    const Tensor& s = *readers[0];
    return is(s, ops::kSoftmax) && s.src.size() == 1 && s.src[0] == &m && s.ne[0] <= kMaxExperts && router_rows(s);
}

// Weights read only by a moe_sum, few enough for its shared memory.
bool summed_weights(const Tensor& w, std::span<Tensor* const> readers) {
    return is(w, ops::kMoeWeights) && w.ne[0] <= kMaxChosen && router_rows(*w.src[0]) &&
           all_of(readers, [&](const Tensor& r) { return is(r, ops::kMoeSum) && r.src[1] == &w && r.src[0] != &w; });
}

// matmul_id's matvec (few tokens) reading this as x.
bool down_matvec(const Tensor& r, const Tensor& x) {
    return is(r, ops::kMatmulId) && r.src[1] == &x && r.ne[2] <= kMatvecMaxTokens;
}

// swiglu(gate, up) of two products laid out alike: the down matvec reads up
// at gate's offsets (matvec.glsl's load_x24 under EXPERTS).
bool expert_glu(const Tensor& g, std::span<Tensor* const> readers) {
    if (!is(g, ops::kSwiglu)) return false;  // before reading sources a node of another op may not have
    const Tensor &gate = *g.src[0], &up = *g.src[1];
    return gate.ne == g.ne && up.ne == g.ne && gate.is_contiguous() && up.is_contiguous() &&
           gate.nb == up.nb && all_of(readers, [&](const Tensor& r) { return down_matvec(r, g); });
}

// v is `of` [k, tokens] as one row per token [k, 1, tokens]: matmul_id's x.
bool token_rows(const Tensor& v, const Tensor& of) {
    return v.is_view() && v.src[0] == &of && v.view_offset == 0 && v.is_contiguous() && v.ne[0] == of.ne[0] &&
           v.ne[1] == 1 && v.ne[2] == of.ne[1] && v.ne[3] == 1;
}

// An rms_norm of the tokens read by the router's matvec and, one row per
// token, by the experts' matvecs (gate and up): each computes it from its
// own loads of the norm's source, as the dense matvecs do (matvec_fusion).
bool expert_norm(const Tensor& n, std::span<Tensor* const> readers) {
    if (!is(n, ops::kRmsNorm) || !router_rows(n) || !n.is_contiguous() || !n.src[0]->is_contiguous()) return false;
    bool experts = false;
    for (const Tensor* r : readers) {
        if (is(*r, ops::kMatmulId) && r->ne[2] <= kMatvecMaxTokens && token_rows(*r->src[1], n))
            experts = true;
        else if (!is(*r, ops::kMatmul) || r->src[1] != &n || n.ne[1] > kMatvecMaxTokens || !kMatmul.supports(*r))
            return false;
    }
    return experts;
}

// The down matmul_id of a few tokens read only by a moe_sum, as the rows it
// weighs: stored all the same, and recorded by the moe_sum's kernel (or the
// add's it is inlined into), the sum in its last workgroups (moe_matvec.hpp).
bool summed_experts(const Tensor& d, std::span<Tensor* const> readers) {
    if (!is(d, ops::kMatmulId) || d.ne[2] > kMatvecMaxTokens || d.ne[1] > kMaxChosen || readers.size() != 1 ||
        !d.is_contiguous())
        return false;
    const Tensor& sum = *readers[0];
    return is(sum, ops::kMoeSum) && sum.src[0] == &d && sum.src[1] != &d;
}

// A moe_sum read only by an add of one operand of its own shape.
bool summed_into_add(const Tensor& s, std::span<Tensor* const> readers) {
    if (!is(s, ops::kMoeSum) || readers.size() != 1 || !s.is_contiguous()) return false;
    const Tensor& add = *readers[0];
    if (!is(add, ops::kAdd) || add.src.size() != 2 || add.src[0] == add.src[1]) return false;
    const Tensor& other = *add.src[add.src[0] == &s ? 1 : 0];
    return (add.src[0] == &s || add.src[1] == &s) && other.ne == s.ne && add.ne == s.ne && router_rows(other) &&
           router_rows(add) && other.type == GgmlType::F32 && add.type == GgmlType::F32;
}

// The router an inlined rms_norm's readers include, where the topk that ranks
// its softmax records it (router_matvec, router_softmax, inlined): the one
// matmul among them, of F32 weights of dense rows; else nullptr.
const Tensor* ranked_router(const Tensor& norm, const Backend::ReadersOf& readers_of) {
    const Tensor* router = nullptr;
    for (const Tensor* r : readers_of(norm))
        if (is(*r, ops::kMatmul)) {
            if (router) return nullptr;
            router = r;
        }
    if (!router || !router->inlined || router->src[0]->type != GgmlType::F32 || !dense_rows(*router->src[0], 4))
        return nullptr;
    const std::span<Tensor* const> softmax = readers_of(*router);
    if (softmax.size() != 1 || !softmax[0]->inlined) return nullptr;
    int topks = 0;
    for (const Tensor* r : readers_of(*softmax[0])) topks += is(*r, ops::kTopk) && !r->inlined;
    return topks == 1 ? router : nullptr;
}

// Whether t is a weight in host memory of whole rows of `type` (nullopt:
// any type with a dequantization).
bool host_weight(const Tensor& t, std::optional<GgmlType> type = std::nullopt) {
    return t.is_leaf() && t.leaf == LeafKind::Weight && t.data && t.is_contiguous() && t.ne[2] == 1 &&
           t.ne[3] == 1 && (type ? t.type == *type : find_quant_type(t.type) != nullptr);
}

// Whether the router of o projection `o` (through `norm`) can run beside it,
// split (moe_router_split.hpp): its weights, the gain and o's in host
// memory, x and the addend of o dense rows, a positive softmax scale (z
// ranks as the probabilities then), and its probabilities read only by the
// topk and by inlined moe_weights of its ids inside the down matvecs of
// those ids (matvec_moe.glsl's WEIGHTS_OF_LOGITS: nothing else reads z).
bool splits(const Tensor& o, const Tensor& norm, const Tensor& router, const Backend::ReadersOf& readers_of) {
    const Tensor &x = *o.src[1], &h = *o.src[2];
    if (!host_weight(*router.src[0], GgmlType::F32) || !host_weight(*o.src[0]) || !x.is_contiguous() ||
        !h.is_contiguous() || h.ne != o.ne || x.ne[2] != 1 || x.ne[3] != 1 ||
        (norm.src.size() > 1 && !host_weight(*norm.src[1], GgmlType::F32)))
        return false;
    const Tensor& softmax = *readers_of(router)[0];
    if (!(softmax.param<SoftmaxParams>().scale > 0)) return false;
    for (const Tensor* w : readers_of(softmax)) {
        if (is(*w, ops::kTopk)) continue;
        if (!w->inlined) return false;  // a moe_weights (router_softmax)
        for (const Tensor* sum : readers_of(*w)) {
            const Tensor& down = *sum->src[0];
            if (!is(*sum, ops::kMoeSum) || !down.inlined || !is(down, ops::kMatmulId) || down.src[2] != w->src[1] ||
                down.src[0]->ne[2] != router.ne[0])
                return false;
        }
    }
    return true;
}

// A MoE layer's o projection in generation (a matvec of few tokens, its
// residual the addend: h' = W attn + h), read by the ffn rms_norm, inlined
// into a router that its topk records and into the experts' matvecs, and
// otherwise only by adds of an inlined moe_sum (the block's residual, after
// the experts): the topk records it too, the router's logits found from its
// rows in the same dispatch (moe_matvec.hpp), where the router has at most
// kMaxRoutedExperts; stored for the experts and the residual.
bool routed_residual(const Tensor& o, std::span<Tensor* const> readers, const Backend::ReadersOf& readers_of) {
    if (!is(o, ops::kMatmul) || o.src.size() != 3 || o.src[1]->ne[1] > kMatvecMaxTokens || !router_rows(o) ||
        !kMatmul.supports(o))
        return false;
    const Tensor* norm = nullptr;
    for (const Tensor* r : readers) {
        if (is(*r, ops::kRmsNorm) && r->src[0] == &o && r->inlined && !norm)
            norm = r;
        else if (!is(*r, ops::kAdd) || !moe_sum_of_add(*r).sum)
            return false;
    }
    if (!norm || (norm->src.size() > 1 && !dense_rows(*norm->src[1], 4))) return false;
    const Tensor* router = ranked_router(*norm, readers_of);
    if (!router || router->src[0]->ne[0] != o.ne[0]) return false;
    return router->ne[0] <= kMaxRoutedExperts || splits(o, *norm, *router, readers_of);
}

}  // namespace

const Tensor* routed_router_norm(const Tensor& router) {
    if (!router.inlined || !is(router, ops::kMatmul)) return nullptr;
    const Tensor& x = *router.src[1];
    return x.inlined && is(x, ops::kRmsNorm) && x.src[0]->inlined && is(*x.src[0], ops::kMatmul) ? &x : nullptr;
}

const Tensor* split_router_norm(const Tensor& router) {
    return router.ne[0] > kMaxRoutedExperts ? routed_router_norm(router) : nullptr;
}

bool moe_computed_later(const Tensor& node, std::span<Tensor* const> readers, const Backend::ReadersOf& readers_of) {
    return routed_residual(node, readers, readers_of);
}

bool moe_inlines(const Tensor& node, std::span<Tensor* const> readers) {
    return expert_norm(node, readers) || router_softmax(node, readers) || summed_weights(node, readers) ||
           expert_glu(node, readers) || summed_into_add(node, readers) || moe_stores(node, readers);
}

bool moe_stores(const Tensor& node, std::span<Tensor* const> readers) {
    return router_matvec(node, readers) || summed_experts(node, readers);
}

RouterSource router_source(const Tensor& probs) {
    if (!probs.inlined || !is(probs, ops::kSoftmax)) return {&probs, false, 1};
    const Tensor& logits = *probs.src[0];
    return {&logits, !logits.inlined, probs.param<SoftmaxParams>().scale};
}

MoeSumAdd moe_sum_of_add(const Tensor& add) {
    for (int i : {0, 1})
        if (const Tensor& s = *add.src[size_t(i)]; s.inlined && is(s, ops::kMoeSum)) return {&s, add.src[size_t(1 - i)]};
    return {};
}

}  // namespace tessera::vkk
