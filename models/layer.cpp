#include "models/layer.hpp"

#include <cmath>

#include "ops/ops.hpp"
#include "support/error.hpp"

namespace tessera::model {

Tensor* leaf(Graph& g, const gguf::TensorInfo& info) {
    if (Tensor* t = g.find(info.name)) return t;
    Shape ne{1, 1, 1, 1};
    for (size_t d = 0; d < info.ne.size(); ++d) ne[d] = int64_t(info.ne[d]);
    return g.weight(info.name, info.type.id, ne, info.data.data());
}

Layer::Layer(const PassContext& pass, int index) : pass_(pass), index_(index) {}

Tensor* Layer::weight(std::string_view role) {
    const gguf::TensorInfo* t = model().find(role, index_);
    return leaf(pass_.graph, t ? *t : model().tensor(role));
}

Tensor* Layer::name(Tensor* t, std::string_view what) { return pass_.graph.name(t, prefix() + std::string(what)); }

Tensor* Layer::norm(Tensor* x, std::string_view role) {
    Tensor* gain = weight(role);
    const float eps = model().hparams().rms_eps;
    // One node when the gain is F32, as models store it.
    Tensor* y = gain->type == GgmlType::F32 ? rms_norm(x, eps, gain) : mul(rms_norm(x, eps), gain);
    return name(y, role);
}

Tensor* Layer::project(std::string_view role, Tensor* x, Tensor* residual) {
    Tensor* w = weight(role);
    const gguf::TensorInfo* b = model().bias(role, index_);
    Tensor* bias = b ? leaf(pass_.graph, *b) : nullptr;
    // The matmul adds one addend itself: the bias, or else the residual.
    if (bias && residual) return add(matmul(w, x, pass_.precision, bias), residual);
    Tensor* y = matmul(w, x, pass_.precision, bias ? bias : residual);
    return residual ? y : name(y, role);
}

Tensor* Layer::head_norm(Tensor* x, std::string_view role) {
    return name(rms_norm(x, model().hparams().rms_eps, weight(role)), role);
}

Tensor* Layer::rope(Tensor* x, const AttentionSpec& spec) {
    const HyperParams& hp = model().hparams();
    const RopeParams params{.n_rot = int(hp.n_rot),
                            .freq_base = spec.rope_base > 0 ? spec.rope_base : hp.rope_base,
                            .freq_scale = spec.rope_freq_scale > 0 ? spec.rope_freq_scale : hp.rope_freq_scale,
                            .mode = spec.rope,
                            .attn_factor = spec.rope_attn_factor};
    const gguf::TensorInfo* factors = model().find(spec.rope_factors);
    return tessera::rope(x, pass_.positions, params, factors ? leaf(pass_.graph, *factors) : nullptr);
}

Layer::Qkv Layer::project_qkv(Tensor* h, const AttentionSpec& spec) {
    const HyperParams& hp = model().hparams();
    const int64_t hd = hp.head_dim, n = pass_.n_tokens;
    if (!spec.fused_qkv)
        return {reshape(project("attn_q", h), {hd, hp.n_head, n, 1}), reshape(project("attn_k", h), {hd, hp.n_head_kv, n, 1}),
                reshape(project("attn_v", h), {hd, hp.n_head_kv, n, 1})};
    // Each token's row of attn_qkv's output holds its q heads, then k's, then v's.
    Tensor* qkv = project("attn_qkv", h);
    const size_t f = sizeof(float);
    auto heads = [&](int64_t count, int64_t first_head) {
        return view(qkv, {hd, count, n, 1}, {f, size_t(hd) * f, qkv->nb[1], qkv->nb[1] * size_t(n)},
                    size_t(first_head * hd) * f);
    };
    return {heads(hp.n_head, 0), heads(hp.n_head_kv, hp.n_head), heads(hp.n_head_kv, hp.n_head + hp.n_head_kv)};
}

Tensor* Layer::by_sequence(Tensor* x) {
    const int64_t n_seq = pass_.sequences.count;
    if (n_seq == 1) return x;
    const int64_t per_seq = x->ne[2] / n_seq;
    return view(x, {x->ne[0], x->ne[1], per_seq, n_seq}, {x->nb[0], x->nb[1], x->nb[2], x->nb[2] * size_t(per_seq)});
}

Tensor* Layer::store(Tensor* x, std::string_view what) {
    KvCache& cache = pass_.cache;
    Tensor* rows = pass_.positions;
    if (cache.is_ring(index_))
        for (const RingSlots& ring : pass_.rings)
            if (ring.rows == cache.rows(index_)) rows = ring.slots;
    const PassSequences& seqs = pass_.sequences;
    if (seqs.count > 1) rows = reshape(rows, {rows->ne[0] / seqs.count, seqs.count, 1, 1});
    Shape shape = cache.shape(index_);
    shape[3] = seqs.count;
    void* data = what == "k" ? cache.k(index_, seqs.first) : cache.v(index_, seqs.first);
    Tensor* all = pass_.graph.external(prefix() + std::string(what) + "_cache", cache.type(), shape, data);
    return name(set_rows(all, permute(x, {0, 2, 1, 3}), rows), std::string(what) + "_stored");
}

Tensor* Layer::self_attention(Tensor* h, Tensor* residual, const AttentionSpec& spec) {
    const HyperParams& hp = model().hparams();
    const int64_t hd = hp.head_dim, n = pass_.n_tokens;
    auto [q, k, v] = project_qkv(h, spec);
    v = name(v, "v");
    if (spec.qk_norm) {
        q = head_norm(q, "attn_q_norm");
        k = head_norm(k, "attn_k_norm");
    }
    q = name(rope(q, spec), "q");
    k = name(rope(k, spec), "k");

    // Each sequence's tokens in a block of dimension 3 (nothing changes for one).
    q = by_sequence(q);
    k = by_sequence(k);
    v = by_sequence(v);
    Tensor* k_all = store(k, "k");
    Tensor* v_all = store(v, "v");
    // A ring holds its last rows positions; below that many, the rows written so far.
    const int64_t n_seq = pass_.sequences.count;
    const Shape used{hd, std::min(pass_.cache.rows(index_), pass_.n_kv), hp.n_head_kv, n_seq};
    const AttentionParams params{.scale = spec.scale > 0 ? spec.scale : 1.0f / std::sqrt(float(hd)),
                                 .softcap = spec.softcap,
                                 .window = model().sliding_window(index_)};
    Tensor* positions = n_seq == 1 ? pass_.positions : reshape(pass_.positions, {n / n_seq, n_seq, 1, 1});
    Tensor* att = name(attention(q, view(k_all, used, k_all->nb), view(v_all, used, v_all->nb), positions, params),
                       "attn");
    Tensor* out = project("attn_output", reshape(att, {hd * hp.n_head, n, 1, 1}), residual);
    return name(out, residual ? "attn_residual" : "attn_out");
}

Tensor* Layer::feed_forward(Tensor* h, Tensor* residual, const FeedForwardSpec& spec) {
    Tensor *gate, *up;
    if (spec.fused_gate_up) {
        // Each token's row of ffn_up's output holds the gate's n_ff values, then up's.
        Tensor* both = project("ffn_up", h);
        const int64_t n_ff = both->ne[0] / 2;
        const Strides nb{sizeof(float), both->nb[1], both->nb[1] * size_t(both->ne[1]), both->nb[1] * size_t(both->ne[1])};
        gate = view(both, {n_ff, both->ne[1], 1, 1}, nb);
        up = view(both, {n_ff, both->ne[1], 1, 1}, nb, size_t(n_ff) * sizeof(float));
    } else {
        gate = project("ffn_gate", h);
        up = project("ffn_up", h);
    }
    Tensor* ff = spec.gate == Gate::Gelu ? name(geglu(gate, up), "ffn_geglu") : name(swiglu(gate, up), "ffn_swiglu");
    Tensor* out = project("ffn_down", ff, residual);
    return name(out, residual ? "ffn_residual" : "ffn_out");
}

Tensor* Layer::moe_ffn(Tensor* h, Tensor* residual, bool normalize) {
    const double n_expert = model().hparam("n_expert"), used = model().hparam("n_expert_used");
    if (!(used >= 1 && used <= n_expert))
        throw Error(model().file().name() + ": " + std::string(model().architecture().name) +
                    ".expert_used_count = " + std::to_string(int64_t(used)) + " must be in [1, expert_count = " +
                    std::to_string(int64_t(n_expert)) + "]");
    const int64_t n = h->ne[1];
    Tensor* probs = name(softmax(project("ffn_gate_inp", h)), "ffn_moe_probs");
    Tensor* ids = name(topk(probs, int64_t(used)), "ffn_moe_topk");
    Tensor* weights = name(moe_weights(probs, ids, normalize), "ffn_moe_weights");
    Tensor* token = reshape(h, {h->ne[0], 1, n, 1});  // one row for every chosen expert
    Tensor* gate = matmul_id(weight("ffn_gate_exps"), token, ids, pass_.precision);
    Tensor* up = matmul_id(weight("ffn_up_exps"), token, ids, pass_.precision);
    Tensor* act = name(swiglu(gate, up), "ffn_moe_swiglu");
    Tensor* down = matmul_id(weight("ffn_down_exps"), act, ids, pass_.precision);
    Tensor* out = name(moe_sum(down, weights), "ffn_moe_out");
    return name(residual ? add(out, residual) : out, residual ? "ffn_residual" : "ffn_out");
}

}  // namespace tessera::model
