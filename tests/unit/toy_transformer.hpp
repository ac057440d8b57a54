// A small Llama-style transformer built with the graph builder API, for
// executor and backend tests: embedding lookup, n_layer blocks of (rms_norm,
// GQA attention with rope and a KV cache, SwiGLU feed-forward), final norm,
// output projection.
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "graph_test_util.hpp"
#include "ops/ops.hpp"

namespace tessera::test {

struct ToyConfig {
    int64_t dim = 64, n_head = 4, n_head_kv = 2, ffn = 96, vocab = 40, n_ctx = 16, n_layer = 2;
    GgmlType weight_type = GgmlType::F32;
    GgmlType kv_type = GgmlType::F32;
    float eps = 1e-5f;
    int64_t head_dim() const { return dim / n_head; }
};

// Weights and KV cache storage of one model instance.
class ToyModel {
public:
    explicit ToyModel(const ToyConfig& c) : c_(c) {
        uint32_t seed = 1;
        auto matrix = [&](const std::string& name, int64_t cols, int64_t rows, GgmlType type) {
            weights_[name] = {type, cols, rows, random_weights(type, cols, rows, seed++, 1.0f / std::sqrt(float(cols)))};
        };
        auto norm = [&](const std::string& name) {
            std::vector<float> w = random_floats(size_t(c.dim), seed++, 0.1f);
            for (float& x : w) x += 1.0f;
            std::vector<uint8_t> bytes(w.size() * 4);
            std::memcpy(bytes.data(), w.data(), bytes.size());
            weights_[name] = {GgmlType::F32, c.dim, 1, std::move(bytes)};
        };
        matrix("token_embd", c.dim, c.vocab, c.weight_type);
        for (int64_t l = 0; l < c.n_layer; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            norm(p + "attn_norm");
            matrix(p + "attn_q", c.dim, c.dim, c.weight_type);
            matrix(p + "attn_k", c.dim, c.head_dim() * c.n_head_kv, c.weight_type);
            matrix(p + "attn_v", c.dim, c.head_dim() * c.n_head_kv, c.weight_type);
            matrix(p + "attn_output", c.dim, c.dim, c.weight_type);
            norm(p + "ffn_norm");
            matrix(p + "ffn_gate", c.dim, c.ffn, c.weight_type);
            matrix(p + "ffn_up", c.dim, c.ffn, c.weight_type);
            matrix(p + "ffn_down", c.ffn, c.dim, c.weight_type);
            const size_t cache_bytes = size_t(c.head_dim() * c.n_ctx * c.n_head_kv) * ggml_type_traits(c.kv_type).block_bytes;
            k_cache_.emplace_back(cache_bytes);
            v_cache_.emplace_back(cache_bytes);
        }
        norm("output_norm");
        matrix("output", c.dim, c.vocab, c.weight_type);
    }

    struct Pass {
        Tensor* ids;
        Tensor* positions;
        Tensor* logits;
    };

    // The graph of one pass over n_tokens tokens starting at position pos0.
    Pass build(Graph& g, int64_t n_tokens) {
        const int64_t hd = c_.head_dim();
        Pass pass;
        pass.ids = g.input("ids", GgmlType::I32, {n_tokens, 1, 1, 1});
        pass.positions = g.input("positions", GgmlType::I32, {n_tokens, 1, 1, 1});
        Tensor* x = g.name(get_rows(weight(g, "token_embd"), pass.ids), "embd");
        const RopeParams rope_params{.n_rot = int(hd), .freq_base = 10000.0f, .freq_scale = 1.0f, .mode = RopeMode::Normal};
        for (int64_t l = 0; l < c_.n_layer; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            Tensor* h = g.name(mul(rms_norm(x, c_.eps), weight(g, p + "attn_norm")), p + "attn_in");
            Tensor* q = rope(reshape(matmul(weight(g, p + "attn_q"), h), {hd, c_.n_head, n_tokens, 1}), pass.positions, rope_params);
            Tensor* k = rope(reshape(matmul(weight(g, p + "attn_k"), h), {hd, c_.n_head_kv, n_tokens, 1}), pass.positions, rope_params);
            Tensor* v = reshape(matmul(weight(g, p + "attn_v"), h), {hd, c_.n_head_kv, n_tokens, 1});
            const Shape cache_shape{hd, c_.n_ctx, c_.n_head_kv, 1};
            Tensor* k_cache = g.external(p + "k_cache", c_.kv_type, cache_shape, k_cache_[size_t(l)].data());
            Tensor* v_cache = g.external(p + "v_cache", c_.kv_type, cache_shape, v_cache_[size_t(l)].data());
            // [hd, n_kv_head, tokens] -> [hd, tokens, n_kv_head], rows written at the tokens' positions.
            Tensor* k_all = set_rows(k_cache, permute(k, {0, 2, 1, 3}), pass.positions);
            Tensor* v_all = set_rows(v_cache, permute(v, {0, 2, 1, 3}), pass.positions);
            Tensor* att = attention(q, k_all, v_all, pass.positions, 1.0f / std::sqrt(float(hd)));
            g.name(att, p + "attn");
            x = g.name(add(x, matmul(weight(g, p + "attn_output"), reshape(att, {c_.dim, n_tokens, 1, 1}))), p + "attn_out");
            h = mul(rms_norm(x, c_.eps), weight(g, p + "ffn_norm"));
            Tensor* ff = swiglu(matmul(weight(g, p + "ffn_gate"), h), matmul(weight(g, p + "ffn_up"), h));
            x = g.name(add(x, matmul(weight(g, p + "ffn_down"), ff)), p + "out");
        }
        Tensor* h = mul(rms_norm(x, c_.eps), weight(g, "output_norm"));
        pass.logits = g.name(matmul(weight(g, "output"), h), "logits");
        return pass;
    }

private:
    struct Weight {
        GgmlType type;
        int64_t cols, rows;
        std::vector<uint8_t> bytes;
    };

    Tensor* weight(Graph& g, const std::string& name) {
        if (Tensor* t = g.find(name)) return t;
        const Weight& w = weights_.at(name);
        return g.weight(name, w.type, {w.cols, w.rows, 1, 1}, w.bytes.data());
    }

    ToyConfig c_;
    std::map<std::string, Weight> weights_;
    std::vector<std::vector<uint8_t>> k_cache_, v_cache_;
};

}  // namespace tessera::test
