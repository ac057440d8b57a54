// Synthetic Qwen2 and Llama models (make-model's writer, F32 weights) run
// through their descriptions, the decoder graph and the CPU kernels, against
// an independent forward pass in double precision written here from the
// architectures' definitions. It reads the weights straight from the GGUF
// file and shares no code with models/, graph/, ops/ or kernels/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"

namespace tessera {
namespace {

using Vec = std::vector<double>;

// How the scalar pass computes a block.
struct Variant {
    bool neox_rope;    // rotate pairs (i, i + d/2) of each head, else adjacent pairs (2i, 2i + 1)
    bool qkv_biases;   // add blk.N.attn_{q,k,v}.bias to the projections
};

class ScalarDecoder {
public:
    ScalarDecoder(const gguf::File& f, const model::ModelShape& s, Variant v) : f_(f), s_(s), v_(v) {}

    // Logits of every position of `tokens` ([position][n_vocab]).
    std::vector<Vec> logits(const std::vector<int32_t>& tokens) const {
        const int64_t n_layer = s_.n_layer, hd = s_.head_dim();
        const Vec embd = tensor("token_embd.weight");
        std::vector<Vec> x;
        for (int32_t t : tokens) x.emplace_back(embd.begin() + t * s_.n_embd, embd.begin() + (t + 1) * s_.n_embd);
        for (int64_t l = 0; l < n_layer; ++l) {
            const std::string p = "blk." + std::to_string(l) + ".";
            const bool biased = v_.qkv_biases;
            std::vector<Vec> q, k, v;
            for (size_t pos = 0; pos < x.size(); ++pos) {
                const Vec h = rms_norm(x[pos], tensor(p + "attn_norm.weight"));
                q.push_back(rope(linear(p + "attn_q", h, biased), int64_t(pos)));
                k.push_back(rope(linear(p + "attn_k", h, biased), int64_t(pos)));
                v.push_back(linear(p + "attn_v", h, biased));
            }
            for (size_t pos = 0; pos < x.size(); ++pos) {
                const Vec att = attention(q, k, v, pos, hd);
                add_to(x[pos], linear(p + "attn_output", att, false));
                const Vec h = rms_norm(x[pos], tensor(p + "ffn_norm.weight"));
                const Vec gate = linear(p + "ffn_gate", h, false), up = linear(p + "ffn_up", h, false);
                Vec ff(gate.size());
                for (size_t i = 0; i < ff.size(); ++i) ff[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
                add_to(x[pos], linear(p + "ffn_down", ff, false));
            }
        }
        std::vector<Vec> out;
        for (const Vec& xp : x) out.push_back(linear("output", rms_norm(xp, tensor("output_norm.weight")), false));
        return out;
    }

private:
    Vec tensor(const std::string& name) const {
        const gguf::TensorInfo& t = f_.tensor(name);
        EXPECT_EQ(t.type.id, GgmlType::F32) << name;
        Vec out(t.n_elements());
        for (size_t i = 0; i < out.size(); ++i) {
            float value;
            std::memcpy(&value, t.data.data() + 4 * i, 4);
            out[i] = value;
        }
        return out;
    }

    // W x (+ b): GGUF's [n_in, n_out] weight is n_out rows of n_in values.
    Vec linear(const std::string& base, const Vec& x, bool with_bias) const {
        const Vec w = tensor(base + ".weight");
        Vec y(w.size() / x.size());
        for (size_t o = 0; o < y.size(); ++o)
            for (size_t i = 0; i < x.size(); ++i) y[o] += w[o * x.size() + i] * x[i];
        if (with_bias) add_to(y, tensor(base + ".bias"));
        return y;
    }

    Vec rms_norm(const Vec& x, const Vec& w) const {
        double sum = 0;
        for (double e : x) sum += e * e;
        const double inv = 1.0 / std::sqrt(sum / double(x.size()) + double(s_.rms_eps));
        Vec y(x.size());
        for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * inv * w[i];
        return y;
    }

    // Every head of x ([n_heads * head_dim]) rotated for position pos.
    Vec rope(Vec x, int64_t pos) const {
        const int64_t hd = s_.head_dim(), half = hd / 2;
        for (int64_t head = 0; head < int64_t(x.size()) / hd; ++head) {
            double* e = x.data() + head * hd;
            for (int64_t i = 0; i < half; ++i) {
                const double theta = double(pos) * std::pow(double(s_.rope_base), -2.0 * double(i) / double(hd));
                double& a = v_.neox_rope ? e[i] : e[2 * i];
                double& b = v_.neox_rope ? e[i + half] : e[2 * i + 1];
                const double a0 = a, b0 = b;
                a = a0 * std::cos(theta) - b0 * std::sin(theta);
                b = a0 * std::sin(theta) + b0 * std::cos(theta);
            }
        }
        return x;
    }

    // Causal grouped-query attention of position pos: query head h reads
    // key/value head h / (n_head / n_head_kv).
    Vec attention(const std::vector<Vec>& q, const std::vector<Vec>& k, const std::vector<Vec>& v, size_t pos,
                  int64_t hd) const {
        const int64_t group = s_.n_head / s_.n_head_kv;
        Vec out(size_t(s_.n_head * hd));
        for (int64_t h = 0; h < s_.n_head; ++h) {
            const int64_t kv = h / group;
            Vec score(pos + 1);
            for (size_t j = 0; j <= pos; ++j) {
                for (int64_t i = 0; i < hd; ++i) score[j] += q[pos][h * hd + i] * k[j][kv * hd + i];
                score[j] /= std::sqrt(double(hd));
            }
            const double top = *std::max_element(score.begin(), score.end());
            double sum = 0;
            for (double& e : score) sum += (e = std::exp(e - top));
            for (size_t j = 0; j <= pos; ++j)
                for (int64_t i = 0; i < hd; ++i) out[h * hd + i] += score[j] / sum * v[j][kv * hd + i];
        }
        return out;
    }

    static void add_to(Vec& x, const Vec& y) {
        for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
    }

    const gguf::File& f_;
    model::ModelShape s_;
    Variant v_;
};

double max_diff(const std::vector<Vec>& a, const std::vector<Vec>& b) {
    double d = 0;
    for (size_t p = 0; p < a.size(); ++p)
        for (size_t i = 0; i < a[p].size(); ++i) d = std::max(d, std::fabs(a[p][i] - b[p][i]));
    return d;
}

// Writes the model, runs tessera on it (a 5-token prompt in one pass, then 3
// tokens one at a time through the KV cache) and compares the logits of all 8
// positions with the scalar pass. Checks too that the comparison would catch
// the wrong rope and, where the model has them, ignored biases.
void expect_matches_scalar_pass(const std::string& arch, Variant truth) {
    gguf::test::ScratchDir dir;
    const std::string path = (dir / (arch + ".gguf")).string();
    const model::ModelShape shape{.name = "tiny", .n_vocab = 300, .n_embd = 64, .n_layer = 2, .n_head = 4,
                                  .n_head_kv = 2, .n_ff = 96, .n_ctx = 64};
    model::write_synthetic_model({.shape = shape, .arch = arch, .plan = QuantizePlan::parse("F32"), .seed = 7}, path);
    const model::Model m = model::Model::open(path);
    ASSERT_EQ(m.architecture().name, arch);
    ASSERT_EQ(m.file().find_tensor("blk.1.attn_k.bias") != nullptr, truth.qkv_biases);

    const std::vector<int32_t> tokens = {5, 77, 260, 123, 9, 290, 42, 18};
    model::Session session(m, {.n_ctx = 64, .kv_type = GgmlType::F32});
    const std::vector<float> prompt = session.eval(std::span(tokens).first(5), /*all_logits=*/true);
    std::vector<Vec> ours;
    for (size_t p = 0; p < 5; ++p)
        ours.emplace_back(prompt.begin() + p * shape.n_vocab, prompt.begin() + (p + 1) * shape.n_vocab);
    for (size_t p = 5; p < tokens.size(); ++p) {
        const std::vector<float> next = session.eval(std::span(tokens).subspan(p, 1));
        ours.emplace_back(next.begin(), next.end());
    }

    const std::vector<Vec> exact = ScalarDecoder(m.file(), shape, truth).logits(tokens);
    double scale = 0;
    for (const Vec& row : exact)
        for (double e : row) scale = std::max(scale, std::fabs(e));
    const double tolerance = 1e-4 * scale;
    EXPECT_LE(max_diff(ours, exact), tolerance) << "largest logit " << scale;

    // The comparison has teeth: a scalar pass with the other rope, or without
    // the biases, misses tessera's logits by far more than the tolerance.
    const Variant other_rope{.neox_rope = !truth.neox_rope, .qkv_biases = truth.qkv_biases};
    EXPECT_GT(max_diff(ours, ScalarDecoder(m.file(), shape, other_rope).logits(tokens)), 10 * tolerance);
    if (truth.qkv_biases) {
        const Variant no_biases{.neox_rope = truth.neox_rope, .qkv_biases = false};
        EXPECT_GT(max_diff(ours, ScalarDecoder(m.file(), shape, no_biases).logits(tokens)), 10 * tolerance);
    }
}

TEST(DecoderReference, Qwen2MatchesAScalarPassWithBiasesAndNeoxRope) {
    expect_matches_scalar_pass("qwen2", {.neox_rope = true, .qkv_biases = true});
}

TEST(DecoderReference, LlamaMatchesAScalarPassWithAdjacentPairRope) {
    expect_matches_scalar_pass("llama", {.neox_rope = false, .qkv_biases = false});
}

}  // namespace
}  // namespace tessera
