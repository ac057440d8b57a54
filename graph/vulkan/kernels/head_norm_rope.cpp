#include "graph/vulkan/kernels/head_norm_rope.hpp"

#include <bit>
#include <vector>

#include "graph/vulkan/kernels/attention_decode.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/rope_args.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "ops/attention.hpp"
#include "ops/matmul.hpp"
#include "ops/rms_norm.hpp"
#include "ops/rope.hpp"
#include "ops/set_rows.hpp"

namespace tessera::vkk {

namespace {

// A workgroup per head: an invocation per pair of dims of a 128-dim head.
constexpr uint32_t kGroup = 64;

// shaders/quant/matvec.glsl's specialization constants the head norm's
// epilogue sets (shaders/matvec_head_norm.glsl).
constexpr uint32_t kYF16Constant = 7, kNeoxConstant = 16, kFactorsConstant = 17, kGainConstant = 18;
// Rows per subgroup of k's matvec when its last workgroups normalize,
// rotate and store its heads: 1 instead of kStagedRows, twice the
// workgroups each done sooner, so that the last one of each head finishes
// while q's rows still stream (docs/measured-choices.md#rows-of-ks-matvec).
constexpr uint32_t kHeadNormStagedRows = 1;

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

// A rope read only by a decode attention as its query rows (a few tokens of
// one sequence at the attention's positions), which rotates them itself
// (attention_decode.glsl's Q_NORM_ROPE; no attn_factor there).
bool attended_heads(const Tensor& att, const Tensor& rope) {
    return is(att, ops::kAttention) && att.src[0] == &rope && att.src[3] == rope.src[1] && rope.ne[2] <= kDecodeMaxTokens &&
           rope.ne[0] % 4 == 0 && rope.ne[0] <= kDecodeChunk && rope.param<RopeParams>().attn_factor == 1.0f;
}

// The matmul whose heads a norm reads, where the store of the norm's rope
// records it (head_norm_computed_later); else nullptr.
const Tensor* stored_matvec(const Tensor& norm) {
    const Tensor& v = *norm.src[0];
    return v.is_view() && v.src[0]->inlined && is(*v.src[0], ops::kMatmul) ? v.src[0] : nullptr;
}

// Records store f of the heads of matvec mm as mm's dispatch, with the norm,
// the rope and the store in the last workgroup of each head (matvec.glsl's
// HEAD_NORM_ROPE epilogue; its push constants: matvec_head_norm.glsl).
void record_head_norm_matvec(const HeadNormRope& f, const Tensor& mm, Recorder& rec) {
    const Tensor &norm = *f.norm, &rope = *f.rope, &cache = *f.store;
    const RopeParams& rp = rope.param<RopeParams>();
    const Tensor* factors = rope_freq_factors(rope);
    const bool f16 = cache.type == GgmlType::F16, gain = norm.src.size() > 1;
    const uint32_t elem = f16 ? 2 : 4, head_dim = uint32_t(rope.ne[0]);
    MatvecDispatch d = matvec_dispatch(*fused_matvec(mm), rec);
    override_staged_rows(d.launch, rec.device(), kHeadNormStagedRows);
    d.groups = groups_of(d.push.n, d.launch.group_rows);
    const BoundTensor bcache = rec.bind(cache), bpos = rec.bind(*rope.src[1]), bids = rec.bind(*cache.src[2]);
    if (gain) {
        d.reads[2] = rec.bind(*norm.src[1]);
        d.push.a.first = d.reads[2].first(4);
    }
    d.reads[4] = bpos;
    d.reads[5] = bids;
    if (factors) d.reads[6] = rec.bind(*factors);
    d.push.a.nb1 = bcache.first(elem);
    d.push.a.nb2 = uint32_t(cache.nb[1] / elem);
    d.push.y_nb_head = uint32_t(cache.nb[2] / elem);
    d.push.dst_ne1 = uint32_t(cache.ne[1]);
    d.push.a.nb3 = std::bit_cast<uint32_t>(norm.param<RmsNormParams>().eps);
    d.push.ids_first = bids.first(4);
    d.push.rope_firsts = rope_firsts(bpos.first(4), d.reads[6].first(4));
    d.push.freq_scale = rp.freq_scale;
    d.push.log2_rate = rope_log2_rate(rp);
    d.push.rot = uint32_t(rp.n_rot) | head_dim << 16;
    d.writes[1] = bcache;
    d.writes[2] = rec.counters(uint32_t(d.push.col_groups * (mm.ne[0] / head_dim)));  // per column group and head
    set_epilogue(d.launch, MatvecEpilogue::HeadNormRope);
    set_spec(d.launch.spec, kYF16Constant, f16);
    set_spec(d.launch.spec, kNeoxConstant, rp.mode == RopeMode::Neox);
    set_spec(d.launch.spec, kFactorsConstant, factors != nullptr);
    set_spec(d.launch.spec, kGainConstant, gain);
    d.record(rec);
}

// head_norm_rope.comp writing f's rows at by, laid out as `out`.
void dispatch_head_norm_rope(const HeadNormRope& f, const Tensor& out, const BoundTensor& by, Recorder& rec) {
    const Tensor &norm = *f.norm, &rope = *f.rope, &x = *norm.src[0];
    const RopeParams& rp = rope.param<RopeParams>();
    const Tensor* factors = rope_freq_factors(rope);
    const bool weighted = norm.src.size() > 1, f16 = out.type == GgmlType::F16;
    const uint32_t elem = f16 ? 2 : 4;
    const BoundTensor bx = rec.bind(x), bpos = rec.bind(*rope.src[1]);
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

}  // namespace

bool head_norm_inlines(const Tensor& node, std::span<Tensor* const> readers) {
    if (readers.size() != 1) return false;
    const Tensor& r = *readers[0];
    if (is(node, ops::kRmsNorm)) return is(r, ops::kRope) && norm_of_heads(node, r);
    if (is(node, ops::kRope)) return inlined_norm(*node.src[0]) && (stores_heads(r, node) || attended_heads(r, node));
    return false;
}

bool head_norm_computed_later(const Tensor& node, std::span<Tensor* const> readers,
                              const Backend::ReadersOf& readers_of) {
    if (!is_matvec(node) || node.src.size() != 2 || readers.size() != 1) return false;  // no addend
    const Tensor& norm = *readers[0];
    if (!inlined_norm(norm) || !is_head_reshape(*norm.src[0], node)) return false;
    const std::span<Tensor* const> ropes = readers_of(norm);
    if (ropes.size() != 1 || !ropes[0]->inlined || !is(*ropes[0], ops::kRope)) return false;
    const Tensor& rope = *ropes[0];
    const std::span<Tensor* const> stores = readers_of(rope);
    return stores.size() == 1 && stores_heads(*stores[0], rope) && rope.param<RopeParams>().attn_factor == 1.0f &&
           rope.ne[0] < 65536;  // head_dim << 16 in a push constant
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
    if (const Tensor* mm = f.store ? stored_matvec(*f.norm) : nullptr) return record_head_norm_matvec(f, *mm, rec);
    const Tensor& out = f.store ? *f.store : *f.rope;
    dispatch_head_norm_rope(f, out, rec.bind(out), rec);
}

void record_head_norm_rope_into(const HeadNormRope& f, const BoundTensor& rows, Recorder& rec) {
    dispatch_head_norm_rope({f.norm, f.rope, nullptr}, *f.rope, rows, rec);
}

QueryNormRope query_norm_rope(const HeadNormRope& f, Recorder& rec) {
    const Tensor &norm = *f.norm, &rope = *f.rope, &rows = *norm.src[0];
    const RopeParams& rp = rope.param<RopeParams>();
    const Tensor* factors = rope_freq_factors(rope);
    const bool gain = norm.src.size() > 1;
    const BoundTensor bound = rec.bind(rows);
    return {&rows,
            bound,
            gain ? rec.bind(*norm.src[1]) : bound,
            factors ? rec.bind(*factors) : bound,
            gain,
            factors != nullptr,
            rp.mode == RopeMode::Neox,
            norm.param<RmsNormParams>().eps,
            rope_log2_rate(rp),
            rp.freq_scale,
            uint32_t(rp.n_rot)};
}

}  // namespace tessera::vkk
