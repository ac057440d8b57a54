// The building blocks an architecture's block is written with
// (models/architectures/): one layer's weights by role, norms, projections,
// self-attention with rope and the KV cache, feed-forwards. Each block node
// is named "blk.N.<what>" so that `tessera trace` can dump and compare it.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "graph/graph.hpp"
#include "kernels/cpu/rope.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "models/decoder_graph.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"

namespace tessera::model {

// What every layer of one pass shares (built by models/decoder_graph.cpp).
struct PassContext {
    const Model& model;
    Graph& graph;
    KvCache& cache;
    Tensor* positions;  // I32 [n_tokens]
    std::span<const RingSlots> rings;  // the cache rows of the positions in each ring size
    PassSequences sequences;           // of the cache; n_tokens / sequences.count tokens each
    int64_t n_tokens;
    int64_t n_kv;  // cache positions attention reads
    ActivationPrecision precision;
};

// How a block's self-attention treats q and k. The layer's sliding window
// (Model::sliding_window) applies by itself.
struct AttentionSpec {
    cpu::RopeMode rope = cpu::RopeMode::Normal;
    // Per-head RMS norm of q and k before rope, with the layer's
    // attn_q_norm / attn_k_norm gains over head_dim (Qwen3, Gemma 3).
    bool qk_norm = false;
    // One attn_qkv projection whose output rows are q, k and v, read
    // through views (Phi-3); else attn_q, attn_k and attn_v.
    bool fused_qkv = false;
    // Rope's base and linear scale; 0: the model's (Gemma 3's local layers have their own).
    float rope_base = 0.0f, rope_freq_scale = 0.0f;
    // The role of the per-pair frequency divisors, used where the model has it.
    std::string_view rope_factors = "rope_freqs";
    float rope_attn_factor = 1.0f;  // RopeParams::attn_factor
    float scale = 0.0f;             // of q·k; 0: 1/sqrt(head_dim)
    float softcap = 0.0f;           // AttentionParams::softcap (Gemma 2)
};

enum class Gate {
    Silu,  // SwiGLU (Llama)
    Gelu,  // GeGLU with tanh-approximated GELU (Gemma)
};

// How a block's feed-forward gates.
struct FeedForwardSpec {
    Gate gate = Gate::Silu;
    // ffn_up holds the gate's rows, then up's (Phi-3), read through views; else ffn_gate and ffn_up.
    bool fused_gate_up = false;
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
    // positions up to its own (within the layer's window). Named
    // "attn_residual"; without a residual (nullptr) "attn_out".
    Tensor* self_attention(Tensor* h, Tensor* residual, const AttentionSpec& spec);
    // residual + ffn_down · (act(ffn_gate · h) * (ffn_up · h)). Named
    // "ffn_residual"; without a residual (nullptr) "ffn_out".
    Tensor* feed_forward(Tensor* h, Tensor* residual, const FeedForwardSpec& spec = {});
    // feed_forward with SwiGLU from ffn_gate and ffn_up.
    Tensor* swiglu_ffn(Tensor* h, Tensor* residual) { return feed_forward(h, residual); }
    // residual + a mixture of experts: the router ffn_gate_inp's softmax over
    // the experts, the n_expert_used largest chosen, their weights divided
    // by their sum (`normalize`), the weighted sum of the chosen experts'
    // SwiGLU feed-forwards (ffn_gate_exps, ffn_up_exps, ffn_down_exps).
    // Named "ffn_moe_probs", "ffn_moe_topk", "ffn_moe_weights", "ffn_moe_out",
    // "ffn_residual".
    Tensor* moe_ffn(Tensor* h, Tensor* residual, bool normalize = true);
    // Whether the layer (or the model, for index -1) has a tensor of `role`.
    bool has(std::string_view role) const { return model().find(role, index_) != nullptr; }
    // The context size of the pass's cache (Phi-3 picks its rope factors by it).
    int64_t n_ctx() const { return pass_.cache.n_ctx(); }
    // Whether this layer attends to a sliding window rather than all positions.
    bool is_sliding() const { return model().sliding_window(index_) > 0; }

private:
    // "blk.N."; nothing for the global tensors around the blocks (index -1).
    std::string prefix() const { return index_ < 0 ? "" : "blk." + std::to_string(index_) + "."; }
    // rms_norm of each head of x [head_dim, n_heads, n_tokens] with the gain of `role`.
    Tensor* head_norm(Tensor* x, std::string_view role);
    Tensor* rope(Tensor* x, const AttentionSpec& spec);
    // q, k and v of h, each [head_dim, heads, n_tokens].
    struct Qkv {
        Tensor *q, *k, *v;
    };
    Qkv project_qkv(Tensor* h, const AttentionSpec& spec);
    // x [head_dim, heads, n_tokens] as [head_dim, heads, tokens per sequence, sequences].
    Tensor* by_sequence(Tensor* x);
    // The cache's K ("k") or V ("v") of this layer and the pass's sequences
    // with x's rows stored at the tokens' rows.
    Tensor* store(Tensor* x, std::string_view what);

    const PassContext& pass_;
    int index_;
};

// The graph leaf of a model tensor (one per tensor, however often it is used).
Tensor* leaf(Graph& g, const gguf::TensorInfo& info);

}  // namespace tessera::model
