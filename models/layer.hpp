// The building blocks an architecture's block is written with
// (models/architectures/): one layer's weights by role, norms, projections,
// self-attention with rope and the KV cache, feed-forwards. Each block node
// is named "blk.N.<what>" so that `tessera trace` can dump and compare it.
#pragma once

#include <string>
#include <string_view>

#include "graph/graph.hpp"
#include "kernels/cpu/rope.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"

namespace tessera::model {

// What every layer of one pass shares (built by models/decoder_graph.cpp).
struct PassContext {
    const Model& model;
    Graph& graph;
    KvCache& cache;
    Tensor* positions;  // I32 [n_tokens]
    int64_t n_tokens;
    int64_t n_kv;  // cache positions attention reads
    ActivationPrecision precision;
};

// How a block's self-attention treats q and k.
struct AttentionSpec {
    cpu::RopeMode rope = cpu::RopeMode::Normal;
    // Per-head RMS norm of q and k before rope, with the layer's
    // attn_q_norm / attn_k_norm gains over head_dim (Qwen3).
    bool qk_norm = false;
};

class Layer {
public:
    // index -1: the globals around the blocks (output norm and projection).
    Layer(const PassContext& pass, int index);

    int index() const { return index_; }
    const Model& model() const { return pass_.model; }
    // The graph leaf of this layer's tensor of `role`; a global tensor's when
    // the role is global. Throws when the model has none.
    Tensor* weight(std::string_view role);
    // Names a node "blk.N.<what>".
    Tensor* name(Tensor* t, std::string_view what);

    // rms_norm(x) times the gain of `role`, named by the role.
    Tensor* norm(Tensor* x, std::string_view role);
    // The weight of `role` times x, plus its bias where the model has one,
    // plus `residual` when given; named by the role unless it adds a residual.
    Tensor* project(std::string_view role, Tensor* x, Tensor* residual = nullptr);
    // residual + attn_output · attention(q, k, v of h): k and v appended to
    // the cache at the tokens' positions, every token attending to the cached
    // positions up to its own. Named "attn_residual".
    Tensor* self_attention(Tensor* h, Tensor* residual, const AttentionSpec& spec);
    // residual + ffn_down · (silu(ffn_gate · h) * (ffn_up · h)). Named "ffn_residual".
    Tensor* swiglu_ffn(Tensor* h, Tensor* residual);

private:
    // "blk.N."; nothing for the global tensors around the blocks (index -1).
    std::string prefix() const { return index_ < 0 ? "" : "blk." + std::to_string(index_) + "."; }
    // rms_norm of each head of x [head_dim, n_heads, n_tokens] with the gain of `role`.
    Tensor* head_norm(Tensor* x, std::string_view role);
    Tensor* rope(Tensor* x, const AttentionSpec& spec);

    const PassContext& pass_;
    int index_;
};

// The graph leaf of a model tensor (one per tensor, however often it is used).
Tensor* leaf(Graph& g, const gguf::TensorInfo& info);

}  // namespace tessera::model
