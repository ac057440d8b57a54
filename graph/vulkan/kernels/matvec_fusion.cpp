#include "graph/vulkan/kernels/matvec_fusion.hpp"

#include <algorithm>

#include "graph/vulkan/kernels/layout.hpp"
#include "ops/geglu.hpp"
#include "ops/matmul.hpp"
#include "ops/rms_norm.hpp"
#include "ops/rope.hpp"
#include "ops/set_rows.hpp"
#include "ops/swiglu.hpp"

namespace tessera::vkk {

namespace {

bool one_batch(const Tensor& t) { return t.ne[2] == 1 && t.ne[3] == 1; }

// A rope whose pairs are neighbouring rows of its source: a pair is in one
// matvec workgroup (an even number of rows per workgroup). Not one with an
// attn_factor: the matvec's push constants have no room left for it, and the
// one model that has it (Phi-3) ropes in NEOX mode, which this never takes.
bool rope_on_rows(const Tensor& r) {
    const RopeParams& p = r.param<RopeParams>();
    return p.mode == RopeMode::Normal && p.attn_factor == 1.0f && r.ne[0] % 2 == 0 && p.n_rot % 2 == 0 && p.n_rot <= r.ne[0] &&
           r.is_contiguous() && r.ne[0] < 65536;
}

// The matmul an inlined rope rotates, or nullptr.
const Tensor* rope_source(const Tensor& r) {
    const Tensor& v = *r.src[0];
    if (!v.is_view() || !v.src[0]->inlined || !is(*v.src[0], ops::kMatmul) || !is_head_reshape(v, *v.src[0]))
        return nullptr;
    return v.src[0];
}

// The matvec (and its prologue) of an inlined matmul or of a matmul.
FusedMatvec with_prologue(const Tensor& matmul) {
    FusedMatvec f{.matmul = &matmul};
    const Tensor& x = *matmul.src[1];
    if (x.inlined) (is(x, ops::kRmsNorm) ? f.norm : f.glu) = &x;
    return f;
}

}  // namespace

bool is_matvec(const Tensor& t) {
    return is(t, ops::kMatmul) && t.src[1]->ne[1] <= kMatvecMaxTokens && one_batch(t) && kMatmul.supports(t);
}

bool is_head_reshape(const Tensor& v, const Tensor& of) {
    return v.is_view() && v.src[0] == &of && v.view_offset == 0 && of.is_contiguous() && v.is_contiguous() &&
           v.ne[0] * v.ne[1] == of.ne[0] && v.ne[2] == of.ne[1] && v.ne[3] == 1;
}

bool is_head_permute(const Tensor& v, const Tensor& of) {
    return v.is_view() && v.src[0] == &of && v.view_offset == 0 && of.is_contiguous() && of.ne[3] == 1 &&
           v.ne == Shape{of.ne[0], of.ne[2], of.ne[1], 1} && v.nb[1] == of.nb[2] && v.nb[2] == of.nb[1];
}

// Ids per i3 (a batch of sequences) never reach a store the matvec makes:
// they come with a source of several i3, which is no head permute of a
// matvec's rows (one batch), so a batch's cache stores run set_rows.comp.
bool cache_store(const Tensor& s) {
    return is(s, ops::kSetRows) && (s.type == GgmlType::F32 || s.type == GgmlType::F16) &&
           dense_rows(*s.src[0], s.type == GgmlType::F16 ? 2 : 4);
}

bool inlines(const Tensor& node, std::span<Tensor* const> readers) {
    auto all_read_as_x = [&] {
        return one_batch(node) && std::all_of(readers.begin(), readers.end(), [&](const Tensor* r) {
                   return is_matvec(*r) && r->src[1] == &node;
               });
    };
    if (is(node, ops::kRmsNorm)) return all_read_as_x();
    if (is(node, ops::kSwiglu) || is(node, ops::kGeglu))
        return node.src[0]->ne == node.ne && node.src[1]->ne == node.ne && dense_rows(*node.src[0], 4) &&
               dense_rows(*node.src[1], 4) && all_read_as_x();
    if (readers.size() != 1) return false;
    const Tensor& r = *readers[0];
    if (is(node, ops::kMatmul)) {
        if (!is_matvec(node) || node.src.size() > 2) return false;  // no addend
        if (is(r, ops::kRope)) return rope_on_rows(r) && is_head_reshape(*r.src[0], node);
        if (!cache_store(r)) return false;  // before reading a source another reader (a softmax) may not have
        const Tensor& v = *r.src[1];
        return v.is_view() && is_head_permute(v, *v.src[0]) && is_head_reshape(*v.src[0], node);
    }
    if (is(node, ops::kRope)) return rope_source(node) && cache_store(r) && is_head_permute(*r.src[1], node);
    return false;
}

std::optional<FusedMatvec> fused_matvec(const Tensor& node) {
    if (is(node, ops::kMatmul))
        return node.src[1]->ne[1] <= kMatvecMaxTokens ? std::optional(with_prologue(node)) : std::nullopt;
    if (is(node, ops::kRope)) {
        const Tensor* mm = rope_source(node);
        if (!mm) return std::nullopt;
        FusedMatvec f = with_prologue(*mm);
        f.rope = &node;
        f.head_dim = node.ne[0];
        return f;
    }
    if (is(node, ops::kSetRows)) {
        const Tensor& v = *node.src[1];  // a head permute of a rope or of a reshaped matmul
        if (!v.is_view()) return std::nullopt;
        const Tensor& heads = *v.src[0];
        std::optional<FusedMatvec> f;
        if (is(heads, ops::kRope) && heads.inlined)
            f = fused_matvec(heads);
        else if (heads.is_view() && heads.src[0]->inlined)
            f = with_prologue(*heads.src[0]);
        if (!f) return std::nullopt;
        f->store = &node;
        f->head_dim = heads.ne[0];
        return f;
    }
    return std::nullopt;
}

}  // namespace tessera::vkk
