#include "models/layer.hpp"

#include <cmath>

#include "ops/ops.hpp"

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
    const RopeParams params{
        .n_rot = int(hp.n_rot), .freq_base = hp.rope_base, .freq_scale = hp.rope_freq_scale, .mode = spec.rope};
    const gguf::TensorInfo* factors = model().find("rope_freqs");
    return tessera::rope(x, pass_.positions, params, factors ? leaf(pass_.graph, *factors) : nullptr);
}

Tensor* Layer::self_attention(Tensor* h, Tensor* residual, const AttentionSpec& spec) {
    const HyperParams& hp = model().hparams();
    const int64_t hd = hp.head_dim, n = pass_.n_tokens;
    Tensor* q = reshape(project("attn_q", h), {hd, hp.n_head, n, 1});
    Tensor* k = reshape(project("attn_k", h), {hd, hp.n_head_kv, n, 1});
    Tensor* v = name(reshape(project("attn_v", h), {hd, hp.n_head_kv, n, 1}), "v");
    if (spec.qk_norm) {
        q = head_norm(q, "attn_q_norm");
        k = head_norm(k, "attn_k_norm");
    }
    q = name(rope(q, spec), "q");
    k = name(rope(k, spec), "k");

    KvCache& cache = pass_.cache;
    Graph& g = pass_.graph;
    Tensor* k_cache = g.external(prefix() + "k_cache", cache.type(), cache.shape(), cache.k(index_));
    Tensor* v_cache = g.external(prefix() + "v_cache", cache.type(), cache.shape(), cache.v(index_));
    Tensor* k_all = name(set_rows(k_cache, permute(k, {0, 2, 1, 3}), pass_.positions), "k_stored");
    Tensor* v_all = name(set_rows(v_cache, permute(v, {0, 2, 1, 3}), pass_.positions), "v_stored");
    const Shape used{hd, pass_.n_kv, hp.n_head_kv, 1};
    const float kq_scale = 1.0f / std::sqrt(float(hd));
    Tensor* att = name(attention(q, view(k_all, used, k_all->nb), view(v_all, used, v_all->nb), pass_.positions,
                                 kq_scale),
                       "attn");
    return name(project("attn_output", reshape(att, {hd * hp.n_head, n, 1, 1}), residual), "attn_residual");
}

Tensor* Layer::swiglu_ffn(Tensor* h, Tensor* residual) {
    Tensor* ff = name(swiglu(project("ffn_gate", h), project("ffn_up", h)), "ffn_swiglu");
    return name(project("ffn_down", ff, residual), "ffn_residual");
}

}  // namespace tessera::model
