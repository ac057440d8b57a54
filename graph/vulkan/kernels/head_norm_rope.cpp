#include "graph/vulkan/kernels/head_norm_rope.hpp"

#include <vector>

#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/rope_args.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "ops/rms_norm.hpp"
#include "ops/rope.hpp"
#include "ops/set_rows.hpp"

namespace tessera::vkk {

namespace {

// A workgroup per head: an invocation per pair of dims of a 128-dim head.
constexpr uint32_t kGroup = 64;

struct Push {  // shaders/head_norm_rope.comp
    uint32_t head_dim, n_head, n_rot, rows;
    uint32_t x_first, x_nb1, x_nb2;
    uint32_t y_first, y_nb_head, y_nb_row, dst_rows;
    uint32_t w_first, pos_first, factors_first, ids_first;
    float eps, freq_scale, log2_rate, attn_factor;
};

// An rms_norm of whole heads [head_dim, n_head, tokens] that `rope` rotates.
bool norm_of_heads(const Tensor& n, const Tensor& rope) {
    const Tensor& x = *n.src[0];
    return rope.src[0] == &n && n.ne == rope.ne && n.ne[3] == 1 && x.type == GgmlType::F32 && dense_rows(x, 4) &&
           dense_rows(rope, 4) && (n.src.size() < 2 || dense_rows(*n.src[1], 4));
}

// A set_rows of the rope's rows into an F32 or F16 cache through the permute
// that puts tokens before heads, one id per token (one sequence).
bool stores_heads(const Tensor& s, const Tensor& rope) {
    return cache_store(s) && is_head_permute(*s.src[1], rope) && s.src[2]->ne[1] == 1;
}

bool inlined_norm(const Tensor& t) { return t.inlined && is(t, ops::kRmsNorm); }

}  // namespace

bool head_norm_inlines(const Tensor& node, std::span<Tensor* const> readers) {
    if (readers.size() != 1) return false;
    const Tensor& r = *readers[0];
    if (is(node, ops::kRmsNorm)) return is(r, ops::kRope) && norm_of_heads(node, r);
    if (is(node, ops::kRope)) return inlined_norm(*node.src[0]) && stores_heads(r, node);
    return false;
}

std::optional<HeadNormRope> head_norm_rope(const Tensor& node) {
    const Tensor* rope = &node;
    const Tensor* store = nullptr;
    if (is(node, ops::kSetRows)) {
        const Tensor& v = *node.src[1];
        if (!v.is_view() || !v.src[0]->inlined) return std::nullopt;
        rope = v.src[0];
        store = &node;
    }
    if (!is(*rope, ops::kRope) || !inlined_norm(*rope->src[0])) return std::nullopt;
    return HeadNormRope{rope->src[0], rope, store};
}

void record_head_norm_rope(const HeadNormRope& f, Recorder& rec) {
    const Tensor &norm = *f.norm, &rope = *f.rope, &x = *norm.src[0], &out = f.store ? *f.store : rope;
    const RopeParams& rp = rope.param<RopeParams>();
    const Tensor* factors = rope_freq_factors(rope);
    const bool weighted = norm.src.size() > 1, f16 = out.type == GgmlType::F16;
    const uint32_t elem = f16 ? 2 : 4;
    const BoundTensor bx = rec.bind(x), bpos = rec.bind(*rope.src[1]), by = rec.bind(out);
    const BoundTensor bw = weighted ? rec.bind(*norm.src[1]) : bx, bfactors = factors ? rec.bind(*factors) : bx;
    const BoundTensor bids = f.store ? rec.bind(*f.store->src[2]) : bx;
    // The rope's rows [head_dim, n_head, tokens], or the cache's [head_dim, rows, n_head].
    const uint32_t y_nb_head = uint32_t((f.store ? out.nb[2] : out.nb[1]) / elem);
    const uint32_t y_nb_row = uint32_t((f.store ? out.nb[1] : out.nb[2]) / elem);
    const uint32_t rows = uint32_t(rope.ne[1] * rope.ne[2]);
    const Push push{uint32_t(rope.ne[0]),
                    uint32_t(rope.ne[1]),
                    uint32_t(rp.n_rot),
                    rows,
                    bx.first(4),
                    uint32_t(x.nb[1] / 4),
                    uint32_t(x.nb[2] / 4),
                    by.first(elem),
                    y_nb_head,
                    y_nb_row,
                    uint32_t(f.store ? out.ne[1] : rope.ne[2]),
                    bw.first(4),
                    bpos.first(4),
                    bfactors.first(4),
                    bids.first(4),
                    norm.param<RmsNormParams>().eps,
                    rp.freq_scale,
                    rope_log2_rate(rp),
                    rp.attn_factor};
    const std::vector<uint32_t> spec{rec.device().strided_group_size(kGroup), uint32_t(rp.mode == RopeMode::Neox),
                                     uint32_t(factors != nullptr), uint32_t(weighted), uint32_t(f.store != nullptr),
                                     uint32_t(f16)};
    rec.dispatch("head_norm_rope", spec, {bx, bw, bpos, bfactors, bids}, {by}, push, rows);
}

}  // namespace tessera::vkk
