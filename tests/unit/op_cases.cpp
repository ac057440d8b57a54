#include "op_cases.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include "graph/executor.hpp"
#include "graph_test_util.hpp"
#include "kernels/quant/half.hpp"
#include "op_case_builders.hpp"
#include "ops/ops.hpp"

namespace tessera::test {

namespace {

// I32 positions first, first + 1, ...: a weight, as fill_inputs gives inputs small values.
Tensor* positions_from(Graph& g, int32_t first, int64_t n) {
    static std::map<std::pair<int32_t, int64_t>, std::vector<int32_t>> cache;
    auto& p = cache[{first, n}];
    if (p.empty())
        for (int64_t i = 0; i < n; ++i) p.push_back(first + int32_t(i));
    return g.weight("pos", GgmlType::I32, {n, 1, 1, 1}, p.data());
}

// Per-pair frequency divisors as Llama 3.1's rope_freqs.weight holds them: 1
// for the fastest quarter of the pairs, `slowest` for the slowest quarter, a
// ramp between. A weight: fill_inputs' values would divide by near zero.
// With `lead` > 0, a view that starts `lead` zeros into the weight: kernels
// must find where the factors start (a zero read as a divisor shows).
Tensor* freq_factors(Graph& g, int64_t pairs, float slowest, int64_t lead = 0) {
    static std::map<std::tuple<int64_t, float, int64_t>, std::vector<float>> cache;
    auto& f = cache[{pairs, slowest, lead}];
    if (f.empty()) {
        f.assign(size_t(lead), 0.0f);
        for (int64_t i = 0; i < pairs; ++i) {
            const double t = std::clamp((double(i) / double(pairs) - 0.25) / 0.5, 0.0, 1.0);
            f.push_back(float(1.0 + t * (slowest - 1.0)));
        }
    }
    Tensor* w = g.weight("rope_freqs", GgmlType::F32, {lead + pairs, 1, 1, 1}, f.data());
    if (lead == 0) return w;
    const Shape ne{pairs, 1, 1, 1};
    return view(w, ne, dense_strides(GgmlType::F32, ne), size_t(lead) * sizeof(float));
}

// An F16 cache whose rows already hold earlier tokens (random values).
Tensor* filled_f16_cache(Graph& g, const std::string& name, Shape ne) {
    static std::map<std::pair<std::string, Shape>, std::vector<uint16_t>> cache;
    auto& c = cache[{name, ne}];
    if (c.empty())
        for (float x : random_floats(size_t(ne[0] * ne[1] * ne[2] * ne[3]), uint32_t(ne[0] + ne[2]), 1.0f))
            c.push_back(fp32_to_fp16(x));
    return g.external(name, GgmlType::F16, ne, c.data());
}

// Input `name` stored into an F16 buffer, as a model's F16 cache holds K and V.
Tensor* f16_input(Graph& g, const char* name, Shape ne) {
    static std::map<std::pair<std::string, Shape>, std::vector<uint16_t>> storage;
    auto& s = storage[{name, ne}];
    s.resize(size_t(ne[0] * ne[1] * ne[2] * ne[3]));
    return copy(in(g, name, ne), g.external(std::string(name) + "_f16", GgmlType::F16, ne, s.data()));
}

// A prompt's attention over an F16 cache on tensor cores: Q and P rounded
// to fp16 as well (shaders/attention_coopmat.comp).
constexpr double kTensorCoreAttention = 1e-5;

// What a model does with its KV cache [head_dim, 300, n_head_kv] holding 290
// tokens: append n_q new ones (rows 290...) and attend over the 290 + n_q.
Tensor* cached_attention(Graph& g, int64_t head_dim, int64_t n_head, int64_t n_head_kv, int64_t n_q) {
    const int64_t n_past = 290, n_kv = n_past + n_q;
    Tensor* pos = positions_from(g, int32_t(n_past), n_q);
    auto append = [&](const char* cache, const char* input) {
        Tensor* c = filled_f16_cache(g, cache, {head_dim, 300, n_head_kv, 1});
        Tensor* rows = permute(in(g, input, {head_dim, n_head_kv, n_q, 1}), {0, 2, 1, 3});  // [head_dim, n_q, n_head_kv]
        Tensor* written = set_rows(c, rows, pos);
        return view(written, {head_dim, n_kv, n_head_kv, 1}, written->nb);
    };
    Tensor* k = append("kc", "in_k");
    Tensor* v = append("vc", "in_v");
    return attention(in(g, "in_q", {head_dim, n_head, n_q, 1}), k, v, pos, 1.0f / std::sqrt(float(head_dim)));
}

// Attention of n_q queries at positions first, first + 1, ... over K and V
// [head_dim, n_rows, n_head_kv] (F16 or F32) with a window and soft-capping
// (ops/attention.hpp): Gemma's sliding-window layers. Positions past n_rows
// read the rows as a ring, as their cache holds them (models/kv_cache.hpp).
Tensor* windowed_attention(Graph& g, int64_t head_dim, int64_t n_head, int64_t n_head_kv, int64_t n_q, int64_t n_rows,
                           bool f16, int32_t first, AttentionParams params) {
    const Shape kv{head_dim, n_rows, n_head_kv, 1};
    Tensor* k = f16 ? f16_input(g, "in_k", kv) : in(g, "in_k", kv);
    Tensor* v = f16 ? f16_input(g, "in_v", kv) : in(g, "in_v", kv);
    return attention(in(g, "in_q", {head_dim, n_head, n_q, 1}), k, v, positions_from(g, first, n_q), params);
}

// I32 values of the given shape as a weight (fill_inputs would make them
// distinct and small: these are chosen positions and row ids).
Tensor* i32_values(Graph& g, const char* name, Shape ne, std::vector<int32_t> values) {
    static std::map<std::vector<int32_t>, std::vector<int32_t>> cache;
    return g.weight(name, GgmlType::I32, ne, cache.emplace(values, values).first->second.data());
}

// Positions [n_q, n_seq] of a batch of sequences (ops/attention.hpp):
// sequence b's queries at first[b], first[b] + 1, ...; an idle sequence
// (first -1) has all its queries at -1 and sees nothing.
Tensor* batch_positions(Graph& g, int64_t n_q, const std::vector<int32_t>& first) {
    std::vector<int32_t> p;
    for (int32_t f : first)
        for (int64_t i = 0; i < n_q; ++i) p.push_back(f < 0 ? -1 : f + int32_t(i));
    return i32_values(g, "pos", {n_q, int64_t(first.size()), 1, 1}, p);
}

// Attention of a batch of sequences, each with its own K and V [head_dim,
// n_rows, n_head_kv] (the cache of a model::BatchSession) and its own
// positions (see batch_positions).
Tensor* batch_attention(Graph& g, int64_t head_dim, int64_t n_head, int64_t n_head_kv, int64_t n_q, int64_t n_rows,
                        bool f16, const std::vector<int32_t>& first, AttentionParams params) {
    const int64_t n_seq = int64_t(first.size());
    const Shape kv{head_dim, n_rows, n_head_kv, n_seq};
    Tensor* k = f16 ? f16_input(g, "in_k", kv) : in(g, "in_k", kv);
    Tensor* v = f16 ? f16_input(g, "in_v", kv) : in(g, "in_v", kv);
    return attention(in(g, "in_q", {head_dim, n_head, n_q, n_seq}), k, v, batch_positions(g, n_q, first), params);
}

// What a batched decode pass does with a BatchSession's F16 cache [head_dim,
// 50, n_head_kv, n_seq]: each sequence stores its token at its own row
// (set_rows with ids per sequence; the idle one's -1 stores nothing), then
// attends over the first 40 rows of its own cache (a view, as the decoder's).
Tensor* batch_cached_decode(Graph& g, int64_t head_dim, int64_t n_head, int64_t n_head_kv, const std::vector<int32_t>& pos) {
    const int64_t n_seq = int64_t(pos.size());
    Tensor* positions = i32_values(g, "pos", {1, n_seq, 1, 1}, pos);
    auto append = [&](const char* cache, const char* input) {
        Tensor* c = filled_f16_cache(g, cache, {head_dim, 50, n_head_kv, n_seq});
        // [head_dim, n_head_kv, 1 token, n_seq] -> [head_dim, 1, n_head_kv, n_seq]
        Tensor* rows = permute(in(g, input, {head_dim, n_head_kv, 1, n_seq}), {0, 2, 1, 3});
        Tensor* written = set_rows(c, rows, positions);
        return view(written, {head_dim, 40, n_head_kv, n_seq}, written->nb);
    };
    Tensor* k = append("kc_batch", "in_k");
    Tensor* v = append("vc_batch", "in_v");
    return attention(in(g, "in_q", {head_dim, n_head, 1, n_seq}), k, v, positions, 1.0f / std::sqrt(float(head_dim)));
}

// Attention and cache stores of batches of sequences (model::BatchSession):
// decode (one query per sequence; attention_decode.glsl, every sequence in
// one dispatch) of 3 and 16 sequences at different positions, one idle at
// -1, F16 and F32; a window over a ring, a split decode, the tiled shader
// (head_dim 6), a prompt of 5 tokens for each of 2 sequences; set_rows with
// ids per sequence, a negative one among them.
void add_batch_cases(std::vector<OpCase>& v) {
    const std::vector<int32_t> three{20, -1, 37};
    std::vector<int32_t> sixteen;
    for (int32_t b = 0; b < 16; ++b) sixteen.push_back(b == 5 ? -1 : (b * 7) % 30);
    for (bool f16 : {true, false}) {
        const std::string type = f16 ? "f16" : "f32";
        v.push_back({"attention_batch_decode_3_seq_" + type, [=](Graph& g) {
                         return batch_attention(g, 64, 8, 2, 1, 40, f16, three, {.scale = 0.125f});
                     }, 1e-7});
        v.push_back({"attention_batch_decode_16_seq_" + type, [=](Graph& g) {
                         return batch_attention(g, 32, 4, 2, 1, 30, f16, sixteen, {.scale = 0.2f});
                     }, 1e-7});
        // A ring of 64 rows with a window of 16 and a cap: positions 100
        // and 70 wrap, 10 does not.
        v.push_back({"attention_batch_decode_ring_window_" + type, [=](Graph& g) {
                         return batch_attention(g, 32, 4, 1, 1, 64, f16, {100, -1, 70, 10},
                                                {.scale = 0.2f, .softcap = 4.0f, .window = 16});
                     }, 1e-7});
        // 5 tokens for each of 2 sequences: the prompt shaders (on tensor-core
        // devices attention_coopmat.comp for F16).
        v.push_back({"attention_batch_prompt_5_tokens_2_seq_" + type, [=](Graph& g) {
                         return batch_attention(g, 64, 4, 2, 5, 30, f16, {10, 3}, {.scale = 0.125f});
                     }, 1e-7, f16 ? kTensorCoreAttention : 0.0});
    }
    // 600 rows: each sequence's keys split over workgroups, then joined.
    v.push_back({"attention_batch_decode_split_f16", [](Graph& g) {
                     return batch_attention(g, 64, 4, 2, 1, 600, true, {550, -1, 300}, {.scale = 0.125f});
                 }, 1e-7});
    v.push_back({"attention_batch_decode_d6_tiled", [](Graph& g) {  // head_dim not in 4-value pieces
                     return batch_attention(g, 6, 2, 2, 1, 9, false, {4, 8, -1}, {.scale = 0.4f});
                 }, 1e-7});
    v.push_back({"attention_batch_cached_decode_f16", [](Graph& g) {
                     return batch_cached_decode(g, 64, 8, 2, {33, -1, 7});
                 }, 1e-7});
    for (bool f16 : {true, false})
        v.push_back({std::string("set_rows_per_sequence_") + (f16 ? "f16" : "f32"), [f16](Graph& g) {
                         // [16, 2 tokens, 3 heads, 4 sequences] into rows of their own per sequence.
                         Tensor* src = permute(in(g, "in_a", {16, 3, 2, 4}), {0, 2, 1, 3});
                         Tensor* rows = i32_values(g, "rows", {2, 4, 1, 1}, {3, 7, -1, 0, 9, 2, -1, -1});
                         Tensor* c = f16 ? filled_f16_cache(g, "cache_per_seq", {16, 10, 3, 4}) : nullptr;
                         if (!f16) {
                             static std::vector<float> cache(16 * 10 * 3 * 4, 0.5f);
                             c = g.external("cache_per_seq", GgmlType::F32, {16, 10, 3, 4}, cache.data());
                         }
                         return set_rows(c, src, rows);
                     }, 1e-6});
}

// Qwen3's per-head q and k norms before rope (Layer::head_norm), which the
// Vulkan backend computes inside the rope and the rope inside the cache store
// (graph/vulkan/kernels/head_norm_rope.hpp), for 1 and 7 tokens: NEOX with
// the norm's weight and attn_factor, normal mode over part of a head with
// frequency factors and no weight, and the rotated rows stored into an F16
// or F32 cache.
void add_head_norm_rope_cases(std::vector<OpCase>& v) {
    constexpr int64_t hd = 64, n_head = 4;
    auto heads = [](Graph& g, int64_t m, bool weighted) {
        Tensor* x = reshape(in(g, "in_x", {hd * n_head, m, 1, 1}), {hd, n_head, m, 1});
        return rms_norm(x, 1e-6f, weighted ? in(g, "in_g", {hd, 1, 1, 1}) : nullptr);
    };
    const RopeParams neox{.n_rot = hd, .freq_base = 1000000, .freq_scale = 1, .mode = RopeMode::Neox, .attn_factor = 1.5f};
    const RopeParams part{.n_rot = 40, .freq_base = 10000, .freq_scale = 0.5f, .mode = RopeMode::Normal};
    for (int64_t m : {1, 7}) {
        const std::string of = "_m" + std::to_string(m);
        v.push_back({"fused_head_norm_rope_neox" + of, [=](Graph& g) {
                         return rope(heads(g, m, true), positions_from(g, 30, m), neox);
                     }, 1e-10});
        v.push_back({"fused_head_norm_rope_part_factors" + of, [=](Graph& g) {
                         return rope(heads(g, m, false), positions_from(g, 30, m), part, freq_factors(g, 20, 16));
                     }, 1e-10});
        v.push_back({"fused_head_norm_rope_into_f16_cache" + of, [=](Graph& g) {
                         Tensor* pos = positions_from(g, 40, m);
                         Tensor* k = rope(heads(g, m, true), pos, neox);
                         return set_rows(filled_f16_cache(g, "kc_head_norm", {hd, 50, n_head, 1}), permute(k, {0, 2, 1, 3}), pos);
                     }, 1e-7});
        v.push_back({"fused_head_norm_rope_into_f32_cache" + of, [=](Graph& g) {
                         static std::vector<float> cache(hd * 50 * n_head);
                         Tensor* c = g.external("kc_head_norm_f32", GgmlType::F32, {hd, 50, n_head, 1}, cache.data());
                         Tensor* pos = positions_from(g, 9, m);
                         return set_rows(c, permute(rope(heads(g, m, false), pos, part), {0, 2, 1, 3}), pos);
                     }, 1e-10});
    }
}

// A layer's attention front with Qwen3's per-head q and k norms, as
// Layer::self_attention builds it: q, k and v matvecs of the normed x, the
// head norms and ropes, k and v into F16 caches of 40 rows (earlier rows
// random), attention over the caches at positions 30... On Vulkan, for a few
// tokens the k matvec normalizes, rotates and stores its heads in its last
// workgroups, and the decode attention normalizes and rotates its query rows
// (graph/vulkan/kernels/head_norm_rope.hpp); for 7 tokens q keeps its
// head_norm_rope dispatch.
Tensor* qk_normed_attention(Graph& g, GgmlType type, int64_t m, const RopeParams& rp, bool gains, bool factors) {
    constexpr int64_t hd = 64, n_head = 4, n_head_kv = 2, n_embd = 256, rows = 40;
    Tensor* x = rms_norm(in(g, "in_x", {n_embd, m, 1, 1}), 1e-5f, in(g, "in_attn_gain", {n_embd, 1, 1, 1}));
    auto heads = [&](const char* name, int64_t count, int64_t salt) {
        Tensor* w = g.weight(name, type, {n_embd, hd * count, 1, 1}, weights_of(type, n_embd, hd * count + salt).data());
        return reshape(matmul(w, x), {hd, count, m, 1});
    };
    Tensor* pos = positions_from(g, 30, m);
    Tensor* f = factors ? freq_factors(g, rp.n_rot / 2, 8.0f) : nullptr;
    auto normed_rope = [&](Tensor* t, const char* gain) {
        return rope(rms_norm(t, 1e-6f, gains ? in(g, gain, {hd, 1, 1, 1}) : nullptr), pos, rp, f);
    };
    Tensor* q = normed_rope(heads("w_q", n_head, 0), "in_q_gain");
    Tensor* k = normed_rope(heads("w_k", n_head_kv, 1), "in_k_gain");
    Tensor* v = heads("w_v", n_head_kv, 2);
    auto store = [&](const char* cache, Tensor* t) {
        Tensor* c = filled_f16_cache(g, cache, {hd, rows, n_head_kv, 1});
        return set_rows(c, permute(t, {0, 2, 1, 3}), pos);
    };
    return attention(q, store("kc_qk_norm", k), store("vc_qk_norm", v), pos, 1.0f / std::sqrt(float(hd)));
}

void add_qk_normed_attention_cases(std::vector<OpCase>& v) {
    const RopeParams neox{.n_rot = 64, .freq_base = 1000000, .freq_scale = 1, .mode = RopeMode::Neox};
    const RopeParams part{.n_rot = 40, .freq_base = 10000, .freq_scale = 0.5f, .mode = RopeMode::Normal};
    for (GgmlType type : {GgmlType::F32, GgmlType::Q8_0}) {  // the chunked matvec and the staged one
        if (find_quant_type(type) == nullptr) continue;
        const std::string name(ggml_type_traits(type).name);
        for (int64_t m : {1, 3, 7})
            v.push_back({"fused_qk_norm_attention_" + name + "_m" + std::to_string(m),
                         [=](Graph& g) { return qk_normed_attention(g, type, m, neox, true, false); },
                         type == GgmlType::F32 ? 1e-7 : 5e-4});
    }
    v.push_back({"fused_qk_norm_attention_part_factors_m1",
                 [=](Graph& g) { return qk_normed_attention(g, GgmlType::F32, 1, part, false, true); }, 1e-7});
}

// Cases of windowed_attention: prompt (the tiled shader, on tensor-core
// devices attention_coopmat.comp for F16) and decode shapes
// (attention_decode.glsl, split over workgroups from 512 rows), F16 and
// F32, head_dim 256 (Gemma), 96 (Phi-3), 64 and 32.
void add_windowed_attention_cases(std::vector<OpCase>& v) {
    struct AttentionCase {
        const char* name;
        int64_t head_dim, n_head, n_head_kv, n_q, n_rows;
        bool f16;
        int32_t first;
        AttentionParams params;
    };
    const AttentionCase shapes[] = {
        // A window inside a full cache.
        {"window_prompt_f32_d64", 64, 4, 2, 20, 40, false, 10, {.scale = 0.125f, .window = 8}},
        {"window_prompt_f16_d64", 64, 4, 2, 20, 40, true, 10, {.scale = 0.125f, .window = 8}},
        {"window_decode_f32_d64", 64, 8, 2, 1, 300, false, 290, {.scale = 0.125f, .window = 32}},
        {"window_decode_f16_d64_2_tokens", 64, 8, 2, 2, 300, true, 280, {.scale = 0.125f, .window = 40}},
        // Soft-capped scores (Gemma 2), alone and with a window.
        {"softcap_prompt_f32_d32", 32, 4, 1, 12, 20, false, 5, {.scale = 1.0f, .softcap = 5.0f}},
        {"softcap_prompt_f16_d32_window", 32, 4, 1, 12, 20, true, 5, {.scale = 1.0f, .softcap = 5.0f, .window = 6}},
        {"softcap_decode_f16_d64", 64, 4, 2, 1, 50, true, 45, {.scale = 0.5f, .softcap = 3.0f}},
        {"softcap_decode_f32_d64_window", 64, 4, 2, 2, 50, false, 44, {.scale = 0.5f, .softcap = 3.0f, .window = 9}},
        // A ring: 256 rows, positions 300..306 (rows 44..50), the window of
        // 64 reaching back over the wrap to rows 237...
        {"ring_prompt_f32_d32", 32, 4, 1, 7, 256, false, 300, {.scale = 0.2f, .window = 64}},
        {"ring_prompt_f16_d32", 32, 4, 1, 7, 256, true, 300, {.scale = 0.2f, .window = 64}},
        {"ring_decode_f16_d32", 32, 4, 1, 1, 256, true, 306, {.scale = 0.2f, .window = 64}},
        {"ring_decode_f32_d32_2_tokens", 32, 4, 1, 2, 256, false, 300, {.scale = 0.2f, .window = 64}},
        // The window is all the rows (window 0): every row, from the wrap on.
        {"ring_all_rows_prompt_f16_d64", 64, 2, 1, 9, 256, true, 250, {.scale = 0.125f}},
        {"ring_all_rows_decode_f32_d64", 64, 2, 1, 1, 256, false, 257, {.scale = 0.125f}},
        // Decode split over workgroups (600 rows): a window of 300 over the
        // wrap (position 1000 at row 400) leaves the third split no key; a
        // whole ring of 600 rows, soft-capped.
        {"ring_decode_split_f16_d64_window", 64, 8, 2, 1, 600, true, 1000, {.scale = 0.125f, .window = 300}},
        {"ring_decode_split_f32_d64_softcap", 64, 8, 2, 2, 600, false, 700, {.scale = 0.125f, .softcap = 4.0f}},
        // Gemma's head_dim 256 and Phi-3's 96.
        {"window_prompt_f32_d256_softcap", 256, 4, 2, 10, 40, false, 20, {.scale = 0.0625f, .softcap = 50.0f, .window = 7}},
        {"ring_decode_f16_d256", 256, 4, 2, 1, 256, true, 400, {.scale = 0.0625f, .window = 100}},
        {"ring_decode_f32_d256_2_tokens", 256, 4, 2, 2, 256, false, 300, {.scale = 0.0625f, .window = 50}},
        {"window_prompt_f16_d96", 96, 4, 4, 16, 48, true, 30, {.scale = 0.1f, .window = 11}},
        {"window_decode_f16_d96", 96, 4, 4, 1, 48, true, 40, {.scale = 0.1f, .window = 11}},
        {"ring_prompt_f32_d96", 96, 4, 2, 5, 256, false, 510, {.scale = 0.1f, .window = 200}},
    };
    for (const AttentionCase& s : shapes)
        v.push_back({std::string("attention_") + s.name,
                     [s](Graph& g) {
                         return windowed_attention(g, s.head_dim, s.n_head, s.n_head_kv, s.n_q, s.n_rows, s.f16, s.first,
                                                   s.params);
                     },
                     1e-7, s.f16 && s.n_q > 4 ? kTensorCoreAttention : 0.0});
}

}  // namespace

std::vector<OpCase> op_cases() {
    std::vector<OpCase> v = {
        {"add_broadcast", [](Graph& g) { return add(in(g, "in_a", {67, 5, 3, 1}), in(g, "in_b", {67, 1, 3, 1})); }, 1e-7},
        {"mul_broadcast", [](Graph& g) { return mul(in(g, "in_a", {33, 7, 1, 1}), in(g, "in_b", {33, 1, 1, 1})); }, 1e-7},
        {"scale", [](Graph& g) { return scale(in(g, "in_a", {129, 3, 1, 1}), -0.37f); }, 1e-7},
        {"silu", [](Graph& g) { return silu(in(g, "in_a", {1000, 3, 1, 1})); }, 1e-7},
        {"swiglu", [](Graph& g) { return swiglu(in(g, "in_a", {257, 2, 1, 1}), in(g, "in_b", {257, 2, 1, 1})); }, 1e-7},
        // A token's row, long enough to be split over several workgroups.
        {"swiglu_5632", [](Graph& g) { return swiglu(in(g, "in_a", {5632, 1, 1, 1}), in(g, "in_b", {5632, 1, 1, 1})); }, 1e-7},
        {"geglu", [](Graph& g) { return geglu(in(g, "in_a", {257, 2, 1, 1}), in(g, "in_b", {257, 2, 1, 1})); }, 1e-7},
        {"geglu_6", [](Graph& g) { return geglu(in(g, "in_a", {6, 3, 1, 1}), in(g, "in_b", {6, 3, 1, 1})); }, 1e-7},
        {"geglu_2048", [](Graph& g) { return geglu(in(g, "in_a", {2048, 1, 1, 1}), in(g, "in_b", {2048, 1, 1, 1})); }, 1e-7},
        // Gates up to +-60: tanh's argument far past where e^2x overflows.
        {"geglu_large_gates", [](Graph& g) {
             return geglu(scale(in(g, "in_a", {130, 2, 1, 1}), 30.0f), in(g, "in_b", {130, 2, 1, 1}));
         }, 1e-7},
        {"softcap", [](Graph& g) { return softcap(in(g, "in_a", {129, 3, 1, 1}), 1.5f); }, 1e-7},
        // Values up to +-2000 against a cap of 30 (Gemma 2's final logits).
        {"softcap_saturated", [](Graph& g) { return softcap(scale(in(g, "in_a", {515, 2, 1, 1}), 1000.0f), 30.0f); }, 1e-7},
        {"add_broadcast_4099", [](Graph& g) { return add(in(g, "in_a", {4099, 3, 1, 1}), in(g, "in_b", {4099, 1, 1, 1})); }, 1e-7},
        {"silu_4099", [](Graph& g) { return silu(in(g, "in_a", {4099, 2, 1, 1})); }, 1e-7},
        {"rms_norm", [](Graph& g) { return rms_norm(in(g, "in_a", {2049, 3, 1, 1}), 1e-6f); }, 1e-7},
        {"rms_norm_4096", [](Graph& g) { return rms_norm(in(g, "in_a", {4096, 2, 1, 1}), 1e-5f); }, 1e-7},
        {"rms_norm_of_slice", [](Graph& g) { return rms_norm(slice_rows(in(g, "in_a", {64, 9, 1, 1}), 2, 5), 1e-5f); }, 1e-7},
        {"rms_norm_weighted",
         [](Graph& g) { return rms_norm(in(g, "in_a", {2049, 3, 2, 1}), 1e-6f, in(g, "in_w", {2049, 1, 1, 1})); },
         1e-7},
        {"rms_norm_weighted_of_slice",
         [](Graph& g) {
             return rms_norm(slice_rows(in(g, "in_a", {64, 9, 1, 1}), 2, 5), 1e-5f, in(g, "in_w", {64, 1, 1, 1}));
         },
         1e-7},
        {"rope_normal", [](Graph& g) {
             return rope(in(g, "in_a", {64, 5, 7, 1}), in(g, "in_pos", {7, 1, 1, 1}, GgmlType::I32),
                         {.n_rot = 64, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal});
         }, 1e-7},
        {"rope_normal_d128_far", [](Graph& g) {
             return rope(in(g, "in_a", {128, 4, 3, 1}), positions_from(g, 1029, 3),
                         {.n_rot = 128, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal});
         }, 1e-7},
        {"rope_neox_partial_scaled", [](Graph& g) {
             return rope(in(g, "in_a", {48, 3, 4, 1}), in(g, "in_pos", {4, 1, 1, 1}, GgmlType::I32),
                         {.n_rot = 32, .freq_base = 500000, .freq_scale = 0.25f, .mode = RopeMode::Neox});
         }, 1e-7},
        // With Llama 3.1's per-pair frequency divisors (rope_freqs): its
        // head_dim and base, far positions; a partial NEOX rotation.
        {"rope_normal_d128_far_freq_factors", [](Graph& g) {
             return rope(in(g, "in_a", {128, 4, 3, 1}), positions_from(g, 1029, 3),
                         {.n_rot = 128, .freq_base = 500000, .freq_scale = 1, .mode = RopeMode::Normal},
                         freq_factors(g, 64, 8));
         }, 1e-7},
        // Phi-3's rope: NEOX over part of the head, long-context factors and
        // an attn_factor (the dims past n_rot are not scaled).
        {"rope_neox_partial_attn_factor_freq_factors", [](Graph& g) {
             return rope(in(g, "in_a", {96, 3, 4, 1}), positions_from(g, 2000, 4),
                         {.n_rot = 32, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Neox, .attn_factor = 1.19f},
                         freq_factors(g, 16, 8));
         }, 1e-7},
        {"rope_normal_partial_attn_factor", [](Graph& g) {
             return rope(in(g, "in_a", {64, 5, 3, 1}), positions_from(g, 77, 3),
                         {.n_rot = 48, .freq_base = 10000, .freq_scale = 0.5f, .mode = RopeMode::Normal, .attn_factor = 0.8f});
         }, 1e-7},
        {"rope_neox_partial_scaled_freq_factors", [](Graph& g) {
             return rope(in(g, "in_a", {48, 3, 4, 1}), positions_from(g, 2000, 4),
                         {.n_rot = 32, .freq_base = 500000, .freq_scale = 0.25f, .mode = RopeMode::Neox},
                         freq_factors(g, 16, 32, 3));
         }, 1e-7},
        {"softmax_causal", [](Graph& g) {
             return softmax(in(g, "in_a", {37, 6, 2, 1}), 0.125f, in(g, "in_pos", {6, 1, 1, 1}, GgmlType::I32));
         }, 1e-6},
        {"softmax_plain", [](Graph& g) { return softmax(in(g, "in_a", {1025, 2, 1, 1}), 3.0f); }, 1e-6},
        {"copy_to_f16_view", [](Graph& g) {
             static std::vector<uint16_t> dst(40 * 8);
             Tensor* d = g.external("dst", GgmlType::F16, {40, 8, 1, 1}, dst.data());
             return copy(in(g, "in_a", {40, 3, 1, 1}), slice_rows(d, 2, 3));
         }, 1e-6},
        {"set_rows_f16_permuted", [](Graph& g) {
             static std::vector<uint16_t> cache(16 * 10 * 3);
             Tensor* c = g.external("cache", GgmlType::F16, {16, 10, 3, 1}, cache.data());
             Tensor* src = permute(in(g, "in_a", {16, 3, 4, 1}), {0, 2, 1, 3});  // [16, 4 tokens, 3 heads]
             return set_rows(c, src, in(g, "in_rows", {4, 1, 1, 1}, GgmlType::I32));
         }, 1e-6},
        {"attention_gqa_f16", [](Graph& g) {
             return attention(in(g, "in_q", {32, 4, 5, 1}), f16_input(g, "in_k", {32, 9, 2, 1}),
                              f16_input(g, "in_v", {32, 9, 2, 1}), in(g, "in_pos", {5, 1, 1, 1}, GgmlType::I32), 0.2f);
         }, 1e-7, kTensorCoreAttention},
        {"attention_mha_f32", [](Graph& g) {
             return attention(in(g, "in_q", {8, 3, 6, 1}), in(g, "in_k", {8, 7, 3, 1}), in(g, "in_v", {8, 7, 3, 1}),
                              in(g, "in_pos", {6, 1, 1, 1}, GgmlType::I32), 0.35f);
         }, 1e-7},
        // Several tiles of keys, a last one partly seen, n_past > 0.
        {"attention_decode_f16_cache_d128", [](Graph& g) { return cached_attention(g, 128, 8, 2, 1); }, 1e-7},
        // TinyLlama's head_dim: 8 invocations share a key's scores where subgroups hold 8 (lavapipe's do).
        {"attention_decode_f16_cache_d64_2_tokens", [](Graph& g) { return cached_attention(g, 64, 8, 2, 2); }, 1e-7},
        {"attention_prompt_f16_cache_d64", [](Graph& g) { return cached_attention(g, 64, 6, 2, 7); }, 1e-7,
         kTensorCoreAttention},
        {"attention_prompt_f32_permuted_d128", [](Graph& g) {
             auto kv = [&](const char* name) { return permute(in(g, name, {128, 4, 300, 1}), {0, 2, 1, 3}); };
             return attention(in(g, "in_q", {128, 4, 7, 1}), kv("in_k"), kv("in_v"), positions_from(g, 293, 7), 0.09f);
         }, 1e-7},
        // 40 rows per kv head: a workgroup of 32 (outputs in blocks of 8
        // rows) and one of 8 rows and 24 past the last; 56 keys at most.
        {"attention_prompt_mha_d128_40_tokens", [](Graph& g) {
             return attention(in(g, "in_q", {128, 2, 40, 1}), in(g, "in_k", {128, 60, 2, 1}),
                              in(g, "in_v", {128, 60, 2, 1}), positions_from(g, 15, 40), 0.08f);
         }, 1e-7},
        {"attention_prompt_mha_d128_40_tokens_f16", [](Graph& g) {
             return attention(in(g, "in_q", {128, 2, 40, 1}), f16_input(g, "in_k", {128, 60, 2, 1}),
                              f16_input(g, "in_v", {128, 60, 2, 1}), positions_from(g, 15, 40), 0.08f);
         }, 1e-7, kTensorCoreAttention},
        {"attention_d256_group7", [](Graph& g) {  // a smaller tile of keys (shared memory), 7 heads per kv head
             return attention(in(g, "in_q", {256, 7, 3, 1}), in(g, "in_k", {256, 40, 1, 1}), in(g, "in_v", {256, 40, 1, 1}),
                              positions_from(g, 30, 3), 0.06f);
         }, 1e-7},
        // Generation shapes (attention_decode.glsl): TinyLlama's heads over
        // 1100 keys in 5 splits, the last partly seen; F32 K/V.
        {"attention_decode_f32_group8_long", [](Graph& g) {
             return attention(in(g, "in_q", {64, 32, 2, 1}), in(g, "in_k", {64, 1100, 4, 1}),
                              in(g, "in_v", {64, 1100, 4, 1}), positions_from(g, 1097, 2), 0.125f);
         }, 1e-7},
        // A long window: a row's keys split over workgroups of 256, joined by
        // a second dispatch; positions 300 and 301 of 800 leave the last two
        // splits without keys.
        {"attention_decode_f16_split_empty_tail", [](Graph& g) {
             return attention(in(g, "in_q", {64, 8, 2, 1}), f16_input(g, "in_k", {64, 800, 2, 1}),
                              f16_input(g, "in_v", {64, 800, 2, 1}), positions_from(g, 300, 2), 0.125f);
         }, 1e-7},
        {"attention_decode_first_sees_nothing", [](Graph& g) {  // position -1 then 0: no keys, then one
             return attention(in(g, "in_q", {16, 2, 2, 1}), in(g, "in_k", {16, 3, 1, 1}), in(g, "in_v", {16, 3, 1, 1}),
                              positions_from(g, -1, 2), 0.3f);
         }, 1e-7},
        {"attention_decode_d6_tiled", [](Graph& g) {  // head_dim not in 4-value pieces: the tiled shader
             return attention(in(g, "in_q", {6, 2, 1, 1}), in(g, "in_k", {6, 5, 2, 1}), in(g, "in_v", {6, 5, 2, 1}),
                              positions_from(g, 3, 1), 0.4f);
         }, 1e-7},
        // Prompts in several workgroups of rows per kv head, sharp enough
        // (scale 1) that a row's max moves far between tiles of keys.
        {"attention_prompt_gqa_d64_100_tokens", [](Graph& g) {
             return attention(in(g, "in_q", {64, 8, 100, 1}), f16_input(g, "in_k", {64, 130, 2, 1}),
                              f16_input(g, "in_v", {64, 130, 2, 1}), positions_from(g, 30, 100), 1.0f);
         }, 1e-7, kTensorCoreAttention},
        {"attention_prompt_f16_cache_unaligned_d32", [](Graph& g) {  // K and V not in 4-value pieces
             auto cache = [&](const char* input) {
                 Tensor* full = f16_input(g, input, {34, 80, 2, 1});
                 return view(full, {32, 80, 2, 1}, full->nb, sizeof(uint16_t));
             };
             return attention(in(g, "in_q", {32, 4, 70, 1}), cache("in_k"), cache("in_v"), positions_from(g, 5, 70),
                              0.3f);
         }, 1e-7, kTensorCoreAttention},
        {"attention_d80_first_sees_nothing", [](Graph& g) {  // position -1: no keys, output 0
             return attention(in(g, "in_q", {80, 4, 13, 1}), f16_input(g, "in_k", {80, 70, 2, 1}),
                              f16_input(g, "in_v", {80, 70, 2, 1}), positions_from(g, -1, 13), 0.1f);
         }, 1e-7, kTensorCoreAttention},
    };
    add_windowed_attention_cases(v);
    add_batch_cases(v);
    // get_rows and matmul for every weight type of the build.
    for (const QuantTypeEntry& t : enabled_quant_types()) {
        const GgmlType type = t.traits.id;
        const std::string name(t.traits.name);
        if (type == GgmlType::Q8_1 || type == GgmlType::Q8_K) continue;  // activation-only formats
        // Plain types get an odd row length (stories260K has F16 rows of 172).
        const int64_t k = t.traits.block_elems == 256 ? 512 : t.traits.block_elems == 1 ? 172 : 96;
        v.push_back({"get_rows_" + name, [type, k](Graph& g) {
                         Tensor* table = g.weight("table", type, {k, 11, 1, 1}, weights_of(type, k, 11).data());
                         return get_rows(table, in(g, "in_ids", {4, 1, 1, 1}, GgmlType::I32));
                     }, 0.0});
        const double bound = type == GgmlType::F32 ? 1e-10 : type == GgmlType::F16 || type == GgmlType::BF16 ? 1e-5 : 5e-4;
        for (int64_t m : {1, 3, 17})
            v.push_back({"matmul_" + name + "_m" + std::to_string(m), [type, k, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {k, 13, 1, 1}, weights_of(type, k, 13).data());
                             return matmul(w, in(g, "in_x", {k, m, 1, 1}));
                         }, bound});
    }
    // Shapes the matmul kernels treat apart, on a plain and a block type: long
    // rows, more tokens than one tile edge, batches of x (strided: a permuted view).
    for (GgmlType type : {GgmlType::F16, GgmlType::Q4_K}) {
        if (find_quant_type(type) == nullptr) continue;
        const std::string name(ggml_type_traits(type).name);
        const int64_t k = type == GgmlType::F16 ? 64 : 256;
        for (int64_t m : {1, 40})
            v.push_back({"matmul_" + name + "_k4096_m" + std::to_string(m), [type, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {4096, 3, 1, 1}, weights_of(type, 4096, 3).data());
                             return matmul(w, in(g, "in_x", {4096, m, 1, 1}));
                         }, 5e-4});
        // The 16-bit staged matvec of long rows: Q4_K's units of half blocks
        // (graph/vulkan/kernels/matmul_variants.cpp's kHalfUnitsFromValues).
        for (int64_t m : {1, 3})
            v.push_back({"matmul_" + name + "_q16_k4096_m" + std::to_string(m), [type, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {4096, 5, 1, 1}, weights_of(type, 4096, 5).data());
                             return matmul(w, in(g, "in_x", {4096, m, 1, 1}), ActivationPrecision::Q16);
                         }, 1e-8});
        // 4 tokens of rows too long for the staged matvec's shared memory: the chunked one.
        v.push_back({"matmul_" + name + "_k16384_m4", [type](Graph& g) {
                         Tensor* w = g.weight("w", type, {16384, 3, 1, 1}, weights_of(type, 16384, 3).data());
                         return matmul(w, in(g, "in_x", {16384, 4, 1, 1}));
                     }, 5e-4});
        for (int64_t m : {2, 9})
            v.push_back({"matmul_" + name + "_batched_m" + std::to_string(m), [type, k, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {k, 5, 1, 1}, weights_of(type, k, 5).data());
                             Tensor* x = permute(in(g, "in_x", {k, 3, m, 2}), {0, 2, 1, 3});  // [k, m, 3, 2]
                             return matmul(w, x);
                         }, 5e-4});
    }
    // y = W x + addend: a residual stream (one row per token) or a bias row
    // repeated over the tokens; matvec (m <= 4) and the tiled kernel (or the
    // tensor cores, which round x and W to fp16). The addend is about 1% of
    // y's energy: the bars catch it added at 0.9 of its value.
    for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K, GgmlType::F16}) {
        if (find_quant_type(type) == nullptr) continue;
        const std::string name(ggml_type_traits(type).name);
        // 16-bit activations (the default) keep about 15 bits of x: far below
        // the 8-bit bound above (a matvec that rounded x to 8 bits fails it).
        for (int64_t m : {1, 3})
            v.push_back({"matmul_" + name + "_q16_m" + std::to_string(m), [type, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {512, 13, 1, 1}, weights_of(type, 512, 13).data());
                             return matmul(w, in(g, "in_x", {512, m, 1, 1}), ActivationPrecision::Q16);
                         }, 1e-8});
        for (int64_t m : {1, 3, 17}) {
            v.push_back({"matmul_" + name + "_plus_residual_m" + std::to_string(m), [type, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {256, 13, 1, 1}, weights_of(type, 256, 13).data());
                             return matmul(w, in(g, "in_x", {256, m, 1, 1}), ActivationPrecision::Q16,
                                           in(g, "in_r", {13, m, 1, 1}));
                         }, 1e-6, 1e-5});
            v.push_back({"matmul_" + name + "_plus_bias_m" + std::to_string(m), [type, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {256, 13, 1, 1}, weights_of(type, 256, 13).data());
                             return matmul(w, in(g, "in_x", {256, m, 1, 1}), ActivationPrecision::Q16,
                                           in(g, "in_b", {13, 1, 1, 1}));
                         }, 1e-6, 1e-5});
        }
    }
    // Matrices of many rows, not a multiple of a workgroup's, in the 16-bit
    // staged matvec (matmul_variants.cpp): Q8_0 wide enough for two rows a
    // subgroup (kX16WideRows; narrower ones take one), Q6_K (Q4_K_M's
    // output) for several passes of a workgroup's subgroups (kPassRows).
    for (const auto& [type, rows] : {std::pair{GgmlType::Q8_0, int64_t(16400)}, std::pair{GgmlType::Q6_K, int64_t(65600)}}) {
        if (find_quant_type(type) == nullptr) continue;
        const std::string name = std::string(ggml_type_traits(type).name) + "_q16_" + std::to_string(rows) + "_rows";
        for (int64_t m : {1, 3})
            v.push_back({"matmul_" + name + "_m" + std::to_string(m), [type, rows, m](Graph& g) {
                             Tensor* w = g.weight("w", type, {256, rows, 1, 1}, weights_of(type, 256, rows).data());
                             return matmul(w, in(g, "in_x", {256, m, 1, 1}), ActivationPrecision::Q16);
                         }, 1e-8});
    }
    // Rows enough for the tensor cores' tall variant (graph/vulkan/kernels/
    // matmul.cpp), not a multiple of its tile; tokens not one of its tile.
    if (find_quant_type(GgmlType::Q4_0) != nullptr)
        v.push_back({"matmul_Q4_0_4100_rows_m9", [](Graph& g) {
                         Tensor* w = g.weight("w", GgmlType::Q4_0, {64, 4100, 1, 1}, weights_of(GgmlType::Q4_0, 64, 4100).data());
                         return matmul(w, in(g, "in_x", {64, 9, 1, 1}));
                     }, 5e-4});
    // Rows enough for the workgroup-scope kernel of the types that have it,
    // not a multiple of its tile, k not one of its step (F16), and tokens
    // past one tile of 128 into both halves of the second (its two
    // accumulators).
    for (const auto& [type, k] : {std::pair{GgmlType::Q4_0, int64_t(64)}, std::pair{GgmlType::Q8_0, int64_t(64)},
                                  std::pair{GgmlType::F16, int64_t(72)}}) {
        if (find_quant_type(type) == nullptr) continue;
        v.push_back({"matmul_" + std::string(ggml_type_traits(type).name) + "_4100_rows_m200", [type, k](Graph& g) {
                         Tensor* w = g.weight("w", type, {k, 4100, 1, 1}, weights_of(type, k, 4100).data());
                         return matmul(w, in(g, "in_x", {k, 200, 1, 1}));
                     }, type == GgmlType::F16 ? 1e-5 : 5e-4});
    }
    // More workgroups than one grid dimension holds (65535): a matrix of 140001
    // short rows, and as many ids.
    if (find_quant_type(GgmlType::Q4_0) != nullptr) {
        constexpr int64_t kRows = 140001;
        v.push_back({"matmul_Q4_0_many_rows", [](Graph& g) {
                         Tensor* w = g.weight("w", GgmlType::Q4_0, {32, kRows, 1, 1}, weights_of(GgmlType::Q4_0, 32, kRows).data());
                         return matmul(w, in(g, "in_x", {32, 1, 1, 1}));
                     }, 5e-4});
        v.push_back({"get_rows_Q4_0_many_ids", [](Graph& g) {
                         Tensor* table = g.weight("table", GgmlType::Q4_0, {32, kRows, 1, 1}, weights_of(GgmlType::Q4_0, 32, kRows).data());
                         return get_rows(table, in(g, "in_ids", {kRows - 2, 1, 1, 1}, GgmlType::I32));
                     }, 0.0});
    }
    // What the Vulkan backend computes inside a matvec (graph/vulkan/kernels/
    // matvec_fusion.hpp), for 1 and 3 tokens: x's norm (with or without its
    // gain), swiglu with an addend, rope of the rows (all or part of a head,
    // scaled, with or without frequency factors), and the rows, rotated or
    // not, stored into an F16 or F32 cache as a decoder layer stores k and v.
    for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q4_K, GgmlType::F16}) {
        if (find_quant_type(type) == nullptr) continue;
        auto w = [type](Graph& g) { return g.weight("w", type, {256, 64, 1, 1}, weights_of(type, 256, 64).data()); };
        auto gain = [](Graph& g) { return in(g, "in_g", {256, 1, 1, 1}); };
        for (int64_t m : {1, 3}) {
            const std::string of = std::string(ggml_type_traits(type).name) + "_m" + std::to_string(m);
            v.push_back({"fused_norm_matvec_" + of, [=](Graph& g) {
                             return matmul(w(g), rms_norm(in(g, "in_x", {256, m, 1, 1}), 1e-5f, gain(g)));
                         }, 5e-4});
            v.push_back({"fused_swiglu_matvec_plus_" + of, [=](Graph& g) {
                             Tensor* ff = swiglu(in(g, "in_a", {256, m, 1, 1}), in(g, "in_b", {256, m, 1, 1}));
                             return matmul(w(g), ff, ActivationPrecision::Q16, in(g, "in_r", {64, m, 1, 1}));
                         }, 5e-4});
            v.push_back({"fused_geglu_matvec_plus_" + of, [=](Graph& g) {
                             Tensor* ff = geglu(in(g, "in_a", {256, m, 1, 1}), in(g, "in_b", {256, m, 1, 1}));
                             return matmul(w(g), ff, ActivationPrecision::Q16, in(g, "in_r", {64, m, 1, 1}));
                         }, 5e-4});
            // An attn_factor keeps the rope out of the matvec (matvec_fusion.cpp).
            v.push_back({"matvec_then_rope_attn_factor_" + of, [=](Graph& g) {
                             Tensor* y = matmul(w(g), in(g, "in_x", {256, m, 1, 1}));
                             return rope(reshape(y, {16, 4, m, 1}), positions_from(g, 37, m),
                                         {.n_rot = 16, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal,
                                          .attn_factor = 1.3f});
                         }, 5e-4});
            v.push_back({"fused_norm_matvec_rope_" + of, [=](Graph& g) {
                             Tensor* y = matmul(w(g), rms_norm(in(g, "in_x", {256, m, 1, 1}), 1e-6f));
                             return rope(reshape(y, {16, 4, m, 1}), positions_from(g, 37, m),
                                         {.n_rot = 16, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal});
                         }, 5e-4});
            v.push_back({"fused_norm_matvec_rope_into_f16_cache_" + of, [=](Graph& g) {
                             Tensor* pos = positions_from(g, 40, m);
                             Tensor* y = matmul(w(g), rms_norm(in(g, "in_x", {256, m, 1, 1}), 1e-5f, gain(g)));
                             Tensor* k = rope(reshape(y, {16, 4, m, 1}), pos,
                                              {.n_rot = 8, .freq_base = 500000, .freq_scale = 0.5f, .mode = RopeMode::Normal});
                             return set_rows(filled_f16_cache(g, "kc", {16, 50, 4, 1}), permute(k, {0, 2, 1, 3}), pos);
                         }, 5e-4});
            v.push_back({"fused_norm_matvec_rope_freq_factors_" + of, [=](Graph& g) {
                             Tensor* y = matmul(w(g), rms_norm(in(g, "in_x", {256, m, 1, 1}), 1e-6f));
                             return rope(reshape(y, {16, 4, m, 1}), positions_from(g, 1029, m),
                                         {.n_rot = 16, .freq_base = 500000, .freq_scale = 1, .mode = RopeMode::Normal},
                                         freq_factors(g, 8, 32));
                         }, 5e-4});
            v.push_back({"fused_norm_matvec_rope_freq_factors_into_f16_cache_" + of, [=](Graph& g) {
                             Tensor* pos = positions_from(g, 40, m);
                             Tensor* y = matmul(w(g), rms_norm(in(g, "in_x", {256, m, 1, 1}), 1e-5f, gain(g)));
                             Tensor* k = rope(reshape(y, {16, 4, m, 1}), pos,
                                              {.n_rot = 8, .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal},
                                              freq_factors(g, 4, 32, 5));
                             // A cache of its own: rows it got wrong stay out of the other cases.
                             Tensor* cache = filled_f16_cache(g, "kc_of_factors", {16, 50, 4, 1});
                             return set_rows(cache, permute(k, {0, 2, 1, 3}), pos);
                         }, 5e-4});
            v.push_back({"fused_matvec_into_f32_cache_" + of, [=](Graph& g) {
                             static std::vector<float> cache(16 * 50 * 4);
                             Tensor* c = g.external("vc", GgmlType::F32, {16, 50, 4, 1}, cache.data());
                             Tensor* y = matmul(w(g), in(g, "in_x", {256, m, 1, 1}));
                             return set_rows(c, permute(reshape(y, {16, 4, m, 1}), {0, 2, 1, 3}), positions_from(g, 7, m));
                         }, 5e-4});
        }
    }
    // A weight view whose first byte (3 rows of 54 bytes in) is no whole
    // number of blocks from an aligned offset.
    if (find_quant_type(GgmlType::Q4_0) != nullptr)
        v.push_back({"matmul_Q4_0_weight_rows_view", [](Graph& g) {
                         Tensor* w = g.weight("w", GgmlType::Q4_0, {96, 7, 1, 1}, weights_of(GgmlType::Q4_0, 96, 7).data());
                         return matmul(slice_rows(w, 3, 4), in(g, "in_x", {96, 5, 1, 1}));
                     }, 5e-4});
    add_moe_cases(v);
    add_head_norm_rope_cases(v);
    add_qk_normed_attention_cases(v);
    return v;
}


void fill_inputs(Graph& g) {
    for (Tensor& t : g.tensors()) {
        if (t.leaf != LeafKind::Input) continue;
        const uint32_t seed = uint32_t(std::hash<std::string>{}(t.name));
        if (t.type == GgmlType::I32) {
            std::vector<int32_t> v(size_t(t.nelements()));
            for (size_t i = 0; i < v.size(); ++i) v[i] = int32_t(i + seed % 3);  // distinct, small: valid ids, rows and positions
            fill(&t, v);
        } else {
            fill(&t, random_floats(size_t(t.nelements()), seed, 2.0f));
        }
    }
}

std::vector<float> evaluate(const OpCase& c, std::vector<std::shared_ptr<Backend>> backends) {
    Graph g;
    Tensor* out = c.build(g);
    Executor exec(g, {out}, {.backends = std::move(backends)});
    fill_inputs(g);
    exec.run();
    return values_of(*out);
}

}  // namespace tessera::test
