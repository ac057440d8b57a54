#include "models/decoder_graph.hpp"

#include <cmath>

#include "ops/ops.hpp"
#include "support/error.hpp"

namespace tessera::model {

namespace {

// A graph leaf for a model tensor (one per tensor, however often it is used).
Tensor* leaf(Graph& g, const gguf::TensorInfo& info) {
    if (Tensor* t = g.find(info.name)) return t;
    Shape ne{1, 1, 1, 1};
    for (size_t d = 0; d < info.ne.size(); ++d) ne[d] = int64_t(info.ne[d]);
    return g.weight(info.name, info.type.id, ne, info.data.data());
}

Tensor* weight(Graph& g, const Model& m, std::string_view role, int layer = -1) {
    return leaf(g, m.tensor(role, layer));
}

}  // namespace

std::unique_ptr<DecoderPass> build_decoder_pass(const Model& m, KvCache& cache, int64_t n_tokens, int64_t n_past,
                                                bool all_logits, ActivationPrecision precision, int64_t n_kv) {
    if (n_tokens < 1) throw Error("a forward pass needs at least one token");
    if (n_past + n_tokens > cache.n_ctx())
        throw Error("context full: " + std::to_string(n_past) + " cached + " + std::to_string(n_tokens) +
                    " new tokens exceed the context size " + std::to_string(cache.n_ctx()));
    const HyperParams& hp = m.hparams();
    if (n_kv == 0) n_kv = n_past + n_tokens;
    if (n_kv < n_past + n_tokens || n_kv > cache.n_ctx())
        throw Error("attention over " + std::to_string(n_kv) + " cache positions: needs " +
                    std::to_string(n_past + n_tokens) + " to " + std::to_string(cache.n_ctx()));
    const int64_t hd = hp.head_dim;
    auto pass = std::make_unique<DecoderPass>();
    Graph& g = pass->graph;
    pass->tokens = g.input("tokens", GgmlType::I32, {n_tokens, 1, 1, 1});
    pass->positions = g.input("positions", GgmlType::I32, {n_tokens, 1, 1, 1});
    Tensor* pos = pass->positions;
    const RopeParams rope_params{.n_rot = int(hp.n_rot),
                                 .freq_base = hp.rope_base,
                                 .freq_scale = hp.rope_freq_scale,
                                 .mode = m.architecture().rope_mode};
    const float kq_scale = 1.0f / std::sqrt(float(hd));
    // x through the projection of a role: its weight times x, plus its bias
    // where the model has one, plus `residual` when given (the stream the
    // projection adds to), added in the matmul node itself.
    auto project = [&](std::string_view role, int layer, Tensor* x, Tensor* residual = nullptr) {
        Tensor* w = weight(g, m, role, layer);
        const gguf::TensorInfo* b = m.bias(role, layer);
        if (b && residual) return add(matmul(w, x, precision, leaf(g, *b)), residual);
        return matmul(w, x, precision, b ? leaf(g, *b) : residual);
    };

    // RMSNorm with its gain, one node when the gain is F32 (as models store it).
    auto norm = [&](Tensor* x, Tensor* gain) {
        return gain->type == GgmlType::F32 ? rms_norm(x, hp.rms_eps, gain) : mul(rms_norm(x, hp.rms_eps), gain);
    };

    Tensor* x = g.name(get_rows(weight(g, m, "token_embd"), pass->tokens), "embd");
    for (int l = 0; l < int(hp.n_layer); ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        auto w = [&](std::string_view role) { return weight(g, m, role, l); };

        // Attention: q, k, v of the new tokens; k and v appended to the cache;
        // every new token attends to all cached positions up to its own.
        // Projections are named by their weight's role (blk.N.attn_q, ...), so
        // that a trace or --dump can name every node that computes.
        auto named_projection = [&](std::string_view role, Tensor* x) {
            return g.name(project(role, l, x), p + std::string(role));
        };
        Tensor* h = g.name(norm(x, w("attn_norm")), p + "attn_norm");
        Tensor* q = reshape(named_projection("attn_q", h), {hd, hp.n_head, n_tokens, 1});
        Tensor* k = reshape(named_projection("attn_k", h), {hd, hp.n_head_kv, n_tokens, 1});
        Tensor* v = g.name(reshape(named_projection("attn_v", h), {hd, hp.n_head_kv, n_tokens, 1}), p + "v");
        q = g.name(rope(q, pos, rope_params), p + "q");
        k = g.name(rope(k, pos, rope_params), p + "k");
        Tensor* k_cache = g.external(p + "k_cache", cache.type(), cache.shape(), cache.k(l));
        Tensor* v_cache = g.external(p + "v_cache", cache.type(), cache.shape(), cache.v(l));
        Tensor* k_all = g.name(set_rows(k_cache, permute(k, {0, 2, 1, 3}), pos), p + "k_stored");
        Tensor* v_all = g.name(set_rows(v_cache, permute(v, {0, 2, 1, 3}), pos), p + "v_stored");
        const Shape used{hd, n_kv, hp.n_head_kv, 1};
        Tensor* att = attention(q, view(k_all, used, k_all->nb), view(v_all, used, v_all->nb), pos, kq_scale);
        g.name(att, p + "attn");
        x = g.name(project("attn_output", l, reshape(att, {hd * hp.n_head, n_tokens, 1, 1}), x), p + "attn_residual");

        // Feed-forward: SwiGLU.
        h = g.name(norm(x, w("ffn_norm")), p + "ffn_norm");
        Tensor* ff = g.name(swiglu(named_projection("ffn_gate", h), named_projection("ffn_up", h)), p + "ffn_swiglu");
        x = g.name(project("ffn_down", l, ff, x), p + "ffn_residual");
    }
    if (!all_logits && n_tokens > 1) x = slice_rows(x, n_tokens - 1, 1);
    Tensor* h = g.name(norm(x, weight(g, m, "output_norm")), "output_norm");
    pass->logits = g.name(project("output", -1, h), "logits");
    return pass;
}

}  // namespace tessera::model
