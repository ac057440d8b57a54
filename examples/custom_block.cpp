// A Llama-style transformer block built with the graph API (rms_norm, Q/K/V
// projections, rope, causal attention, SwiGLU feed-forward, residuals), run on
// the CPU and, when a Vulkan device is usable, on Vulkan; prints the largest
// difference between the two outputs.
//
//   custom_block [dim] [tokens] [weight type]      e.g. custom_block 512 16 Q4_0
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "graph/choice/backend_choice.hpp"
#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/ops.hpp"

using namespace tessera;

struct BlockShape {
    int64_t dim, n_head, n_head_kv, ffn, n_tokens;
    int64_t head_dim() const { return dim / n_head; }
};

// Random weights, quantized to `type` (norm weights stay F32), that outlive the graphs.
class BlockWeights {
public:
    BlockWeights(const BlockShape& s, GgmlType type) : type_(type) {
        const int64_t kv = s.head_dim() * s.n_head_kv;
        add("attn_q", s.dim, s.dim), add("attn_k", s.dim, kv), add("attn_v", s.dim, kv);
        add("attn_output", s.dim, s.dim), add("ffn_gate", s.dim, s.ffn), add("ffn_up", s.dim, s.ffn);
        add("ffn_down", s.ffn, s.dim), add("attn_norm", s.dim, 1, GgmlType::F32);
        add("ffn_norm", s.dim, 1, GgmlType::F32);
    }

    Tensor* in(Graph& g, const std::string& name) const {
        const Matrix& m = matrices_.at(name);
        return g.weight(name, m.type, {m.cols, m.rows, 1, 1}, m.bytes.data());
    }

private:
    struct Matrix {
        GgmlType type;
        int64_t cols, rows;
        std::vector<uint8_t> bytes;
    };

    void add(const std::string& name, int64_t cols, int64_t rows, std::optional<GgmlType> type = {}) {
        const QuantTypeEntry& q = require_quant_type(type.value_or(type_), name);
        std::normal_distribution<float> normal(0.0f, 1.0f / std::sqrt(float(cols)));
        std::vector<float> row(static_cast<size_t>(cols));
        Matrix m{q.traits.id, cols, rows, std::vector<uint8_t>(q.row_bytes(cols) * size_t(rows))};
        for (int64_t r = 0; r < rows; ++r) {
            for (float& v : row) v = rows == 1 ? 1.0f + normal(rng_) : normal(rng_);
            q.quantize(row.data(), m.bytes.data() + size_t(r) * q.row_bytes(cols), cols);
        }
        matrices_.emplace(name, std::move(m));
    }

    GgmlType type_;
    std::mt19937 rng_{42};
    std::map<std::string, Matrix> matrices_;
};

struct Block {
    Tensor *x, *positions, *out;
};

// x + attention(norm(x)), then + swiglu feed-forward; one pass over positions 0..n_tokens-1.
Block build_block(Graph& g, const BlockShape& s, const BlockWeights& w) {
    const int64_t hd = s.head_dim(), n = s.n_tokens;
    Block b;
    b.x = g.input("x", GgmlType::F32, {s.dim, n, 1, 1});
    b.positions = g.input("positions", GgmlType::I32, {n, 1, 1, 1});
    const RopeParams rope_params{.n_rot = int(hd), .freq_base = 10000.0f, .freq_scale = 1.0f, .mode = RopeMode::Normal};
    // 16-bit activation blocks on the CPU (as models use); Vulkan keeps them F32.
    auto matmul = [](Tensor* w, Tensor* x) { return tessera::matmul(w, x, ActivationPrecision::Q16); };
    Tensor* h = mul(rms_norm(b.x, 1e-5f), w.in(g, "attn_norm"));
    Tensor* q = rope(reshape(matmul(w.in(g, "attn_q"), h), {hd, s.n_head, n, 1}), b.positions, rope_params);
    Tensor* k = rope(reshape(matmul(w.in(g, "attn_k"), h), {hd, s.n_head_kv, n, 1}), b.positions, rope_params);
    Tensor* v = reshape(matmul(w.in(g, "attn_v"), h), {hd, s.n_head_kv, n, 1});
    // attention wants k and v as [head_dim, positions, kv heads].
    Tensor* att = attention(q, permute(k, {0, 2, 1, 3}), permute(v, {0, 2, 1, 3}), b.positions,
                            1.0f / std::sqrt(float(hd)));
    Tensor* x = add(b.x, matmul(w.in(g, "attn_output"), reshape(att, {s.dim, n, 1, 1})));
    h = mul(rms_norm(x, 1e-5f), w.in(g, "ffn_norm"));
    Tensor* ff = swiglu(matmul(w.in(g, "ffn_gate"), h), matmul(w.in(g, "ffn_up"), h));
    b.out = add(x, matmul(w.in(g, "ffn_down"), ff));
    return b;
}

// Builds the block, runs it on `backends` for the same input, returns the output.
std::vector<float> run_block(const BlockShape& s, const BlockWeights& w, std::vector<std::shared_ptr<Backend>> backends) {
    Graph g;
    const Block b = build_block(g, s, w);
    Executor exec(g, {b.out}, {.backends = std::move(backends)});
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    float* x = static_cast<float*>(b.x->data);
    for (int64_t i = 0; i < s.dim * s.n_tokens; ++i) x[i] = normal(rng);
    int32_t* pos = static_cast<int32_t*>(b.positions->data);
    for (int64_t i = 0; i < s.n_tokens; ++i) pos[i] = int32_t(i);
    exec.run();
    const float* out = static_cast<const float*>(b.out->data);
    return {out, out + s.dim * s.n_tokens};
}

int main(int argc, char** argv) {
    const int64_t dim = argc > 1 ? std::atoll(argv[1]) : 512;  // a multiple of 64 (256 for K-quants)
    // Heads of 32 values, two query heads per KV head, the FFN rounded up to K-quant blocks.
    const BlockShape s{.dim = dim, .n_head = dim / 32, .n_head_kv = dim / 64, .ffn = (dim * 8 / 3 + 255) / 256 * 256,
                       .n_tokens = argc > 2 ? std::atoll(argv[2]) : 16};
    const BlockWeights w(s, require_quant_type(argc > 3 ? argv[3] : "Q4_0", "weights").traits.id);

    const std::vector<float> cpu = run_block(s, w, {std::make_shared<CpuBackend>()});
    std::printf("cpu: out[0] = %.6f\n", cpu[0]);

    BackendSet device = make_backends(BackendKind::Auto, 0, 0);
    if (device.backends.front()->name() == "cpu") {
        std::printf("no Vulkan device: %s\n", device.notice.c_str());
        return 0;
    }
    const std::vector<float> gpu = run_block(s, w, std::move(device.backends));
    float max_diff = 0;
    for (size_t i = 0; i < cpu.size(); ++i) max_diff = std::max(max_diff, std::abs(cpu[i] - gpu[i]));
    std::printf("vulkan: out[0] = %.6f, max |cpu - vulkan| = %g\n", gpu[0], max_diff);
}
