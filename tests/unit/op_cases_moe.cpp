// The op cases of a mixture-of-experts block (models/layer.cpp,
// Layer::moe_ffn): topk, moe_weights, moe_sum, matmul_id and the block
// whole, as the Vulkan backend fuses it.
#include <map>
#include <string>
#include <tuple>

#include "kernels/quant/registry.hpp"
#include "op_case_builders.hpp"
#include "ops/ops.hpp"

namespace tessera::test {

namespace {

// F32 rows [n, rows] with many ties (values 0..3): topk must put the lower index first.
Tensor* tied_rows(Graph& g, int64_t n, int64_t rows) {
    static std::map<std::pair<int64_t, int64_t>, std::vector<float>> cache;
    auto& v = cache[{n, rows}];
    if (v.empty())
        for (int64_t i = 0; i < n * rows; ++i) v.push_back(float((i * 7 + i / n) % 4));
    return g.weight("tied", GgmlType::F32, {n, rows, 1, 1}, v.data());
}

// Expert ids [slots, n] for n_expert experts: every token's distinct, the
// experts repeated across tokens, and expert 3 chosen by none (n_expert >= 6,
// slots <= 5).
Tensor* expert_ids(Graph& g, int64_t slots, int64_t n, int64_t n_expert) {
    static std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<int32_t>> cache;
    auto& ids = cache[{slots, n, n_expert}];
    if (ids.empty()) {
        std::vector<int32_t> chosen;  // every expert but 3
        for (int32_t e = 0; e < int32_t(n_expert); ++e)
            if (e != 3) chosen.push_back(e);
        for (int64_t t = 0; t < n; ++t)
            for (int64_t j = 0; j < slots; ++j) ids.push_back(chosen[size_t(t + 2 * j) % chosen.size()]);
    }
    return g.weight("ids", GgmlType::I32, {slots, n, 1, 1}, ids.data());
}

// Layer::moe_ffn's block (models/layer.cpp) for n tokens from the router's
// logits on (`routed`: from the router's matvec of x on): on Vulkan its
// fused form (graph/vulkan/kernels/moe_fusion.hpp: softmax in topk and
// moe_weights, moe_weights in moe_sum, swiglu in the down matvec, moe_sum
// in the residual add; routed, the topk in the last workgroups of the
// router's matvec and the sum in those of the down matvec) against the
// reference's nodes; `used` experts a token (of 8, or of 16 for more than
// 8).
Tensor* moe_block(Graph& g, int64_t n, bool normalize, float scale, bool residual, bool routed = false,
                  int64_t used = 3) {
    constexpr int64_t d = 256, ff = 64;
    const int64_t n_expert = used > 8 ? 16 : 8;
    Tensor* x = in(g, "in_x", {d, n, 1, 1});
    Tensor* logits = routed ? matmul(g.weight("w_router", GgmlType::F32, {d, n_expert, 1, 1},
                                              weights_of(GgmlType::F32, d, n_expert).data()),
                                     x)
                            : in(g, "in_logits", {n_expert, n, 1, 1});
    Tensor* probs = softmax(logits, scale);
    Tensor* ids = topk(probs, used);
    Tensor* weights = moe_weights(probs, ids, normalize);
    Tensor* token = reshape(x, {d, 1, n, 1});
    auto experts = [&](const char* name, GgmlType type, int64_t k, int64_t rows, int64_t salt) {
        return g.weight(name, type, {k, rows, n_expert, 1}, weights_of(type, k, rows * n_expert + salt).data());
    };
    Tensor* gate = matmul_id(experts("w_gate", GgmlType::Q4_K, d, ff, 0), token, ids);
    Tensor* up = matmul_id(experts("w_up", GgmlType::Q4_K, d, ff, 1), token, ids);
    Tensor* down = matmul_id(experts("w_down", GgmlType::Q8_0, ff, d, 0), swiglu(gate, up), ids);
    Tensor* out = moe_sum(down, weights);
    // The residual scaled to a share of the output that the bar sees: a row of
    // it read from its neighbour fails (the _alone cases see the sum alone).
    return residual ? add(out, tessera::scale(x, 16.0f)) : out;
}

// matmul_id of n_expert experts of n_out rows by 256 of `type` over the
// rms_norm of n tokens (with its gain where `gained`), each token's row read
// by its `slots` slots, as Layer::moe_ffn's gate and up read the ffn norm.
Tensor* experts_of_norm(Graph& g, GgmlType type, int64_t n_out, int64_t n_expert, int64_t slots, int64_t n,
                        bool gained) {
    constexpr int64_t k_in = 256;
    Tensor* w = g.weight("w_experts", type, {k_in, n_out, n_expert, 1}, weights_of(type, k_in, n_out * n_expert).data());
    Tensor* gain = gained ? in(g, "in_g", {k_in, 1, 1, 1}) : nullptr;
    Tensor* h = rms_norm(in(g, "in_x", {k_in, n, 1, 1}), 1e-5f, gain);
    return matmul_id(w, reshape(h, {k_in, 1, n, 1}), expert_ids(g, slots, n, n_expert));
}

}  // namespace

// The mixture-of-experts ops (models/layer.cpp, Layer::moe_ffn): topk (ties,
// k = 1, k = n, 128 experts choosing 8), moe_weights with and without
// normalizing, moe_sum, and matmul_id for the weight types of MoE files with
// x one row per token (gate, up) or one per slot (down), for one token and 9
// (the matvec, one batch per slot) and 150 (more than kMatvecMaxTokens: the
// grouped matmul, on the tensor cores where the device has them; experts
// shared by tokens, 75 slots each, more than one tile of 64, one expert
// chosen by none).
void add_moe_cases(std::vector<OpCase>& v) {
    v.push_back({"topk_ties", [](Graph& g) { return topk(tied_rows(g, 13, 5), 6); }, 0.0});
    v.push_back({"topk_k1", [](Graph& g) { return topk(in(g, "in_x", {37, 3, 1, 1}), 1); }, 0.0});
    v.push_back({"topk_k_all", [](Graph& g) { return topk(in(g, "in_x", {37, 3, 1, 1}), 37); }, 0.0});
    v.push_back({"topk_128_experts_k8", [](Graph& g) { return topk(in(g, "in_x", {128, 9, 1, 1}), 8); }, 0.0});
    for (bool normalize : {false, true})
        v.push_back({std::string("moe_weights_") + (normalize ? "normalized" : "plain"), [normalize](Graph& g) {
                         Tensor* probs = softmax(in(g, "in_x", {60, 9, 1, 1}), 1.0f);
                         return moe_weights(probs, topk(probs, 4), normalize);
                     }, 1e-10});
    v.push_back({"moe_sum", [](Graph& g) { return moe_sum(in(g, "in_y", {70, 4, 9, 1}), in(g, "in_w", {4, 9, 1, 1})); },
                 1e-10});
    // 1, 3 and 9 tokens: matvecs (every fusion); 40: the grouped matmul
    // (swiglu on its own; gate, up and down read one route).
    for (int64_t n : {1, 3, 9, 40})
        for (bool residual : {true, false})
            v.push_back({"moe_block_n" + std::to_string(n) + (residual ? "_residual" : "_alone") +
                             (n == 3 ? "_plain_scaled" : ""),
                         [=](Graph& g) { return moe_block(g, n, n != 3, n == 3 ? 0.5f : 1.0f, residual); }, 5e-4});
    // From the router's matvec on, for 1, 3 and 9 tokens (column groups of
    // the router's matvec that each rank their tokens).
    for (int64_t n : {1, 3, 9})
        for (bool residual : {true, false})
            v.push_back({"moe_block_routed_n" + std::to_string(n) + (residual ? "_residual" : "_alone") +
                             (n == 3 ? "_plain_scaled" : ""),
                         [=](Graph& g) { return moe_block(g, n, n != 3, n == 3 ? 0.5f : 1.0f, residual, true); },
                         5e-4});
    // 12 slots a token, of 16 experts: more than the files measured choose
    // (Qwen3-MoE's 8).
    for (int64_t n : {1, 3})
        v.push_back({"moe_block_routed_n" + std::to_string(n) + "_residual_12_slots",
                     [=](Graph& g) { return moe_block(g, n, true, 1.0f, true, true, 12); }, 5e-4});
    for (GgmlType type : {GgmlType::F32, GgmlType::F16, GgmlType::Q8_0, GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q4_K,
                          GgmlType::Q5_K, GgmlType::Q6_K}) {
        if (find_quant_type(type) == nullptr) continue;
        const std::string name(ggml_type_traits(type).name);
        const double bound = type == GgmlType::F32 ? 1e-10 : type == GgmlType::F16 ? 1e-5 : 5e-4;
        constexpr int64_t k_in = 256, n_out = 13, n_expert = 7, slots = 3;
        for (int64_t n : {1, 9, 150})
            for (bool row_per_slot : {false, true})
                v.push_back({"matmul_id_" + name + "_n" + std::to_string(n) + (row_per_slot ? "_x_per_slot" : "_x_per_token"),
                             [=](Graph& g) {
                                 Tensor* w = g.weight("w_experts", type, {k_in, n_out, n_expert, 1},
                                                      weights_of(type, k_in, n_out * n_expert).data());
                                 Tensor* x = in(g, "in_x", {k_in, row_per_slot ? slots : 1, n, 1});
                                 return matmul_id(w, x, expert_ids(g, slots, n, n_expert));
                             }, bound});
        // x the tokens' rms_norm (with and without its gain) seen as one row
        // per token, as Layer::moe_ffn reads its ffn norm: on Vulkan the
        // matvec's norm prologue (moe_fusion.hpp) for 1 and 3 tokens; for 40
        // the grouped matmul, reading on the tensor cores the fp16 copy the
        // norm writes beside its output (half_copy.hpp).
        for (bool gained : {false, true})
            for (int64_t n : {1, 3, 40})
                v.push_back({"matmul_id_" + name + "_n" + std::to_string(n) + (gained ? "_of_norm_gain" : "_of_norm"),
                             [=](Graph& g) { return experts_of_norm(g, type, n_out, n_expert, slots, n, gained); },
                             bound});
    }
    // Gate and up of many rows over their slots (Mixtral's), which the Vulkan
    // matvec gives wider workgroups (matmul_id.cpp's kWideExpertRows): 2
    // slots of 8192 rows, x the norm with its gain, one token and three.
    for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q4_K}) {
        if (find_quant_type(type) == nullptr) continue;
        for (int64_t n : {1, 3})
            v.push_back({"matmul_id_" + std::string(ggml_type_traits(type).name) + "_n" + std::to_string(n) +
                             "_wide_experts",
                         [=](Graph& g) { return experts_of_norm(g, type, 8192, 3, 2, n, true); }, 5e-4});
    }
}

}  // namespace tessera::test
