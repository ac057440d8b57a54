// Qwen3's per-head q and k norms before rope on Vulkan
// (graph/vulkan/kernels/head_norm_rope.hpp): a token's q (norm, rope) and k
// (norm, rope, store into an F16 cache) are one dispatch each, and give what
// the five nodes give on their own; after the q, k and v matvecs, k's norm,
// rope and store are the k matvec's and q's are the decode attention's, so
// that attention is the level after the matvecs.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"
#include "kernels/quant/half.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

constexpr int64_t kHeadDim = 128, kHeads = 8, kHeadsKv = 2, kRows = 16;

struct QkFront {
    Graph g;
    std::vector<float> q_gain = test::random_floats(size_t(kHeadDim), 3, 2.0f);
    std::vector<float> k_gain = test::random_floats(size_t(kHeadDim), 4, 2.0f);
    std::vector<uint16_t> cache = std::vector<uint16_t>(size_t(kHeadDim * kRows * kHeadsKv));
    int32_t position = 5;
    Tensor *q_in = nullptr, *k_in = nullptr, *q = nullptr, *k_stored = nullptr;

    QkFront() {
        const RopeParams neox{.n_rot = kHeadDim, .freq_base = 1000000, .freq_scale = 1, .mode = RopeMode::Neox};
        Tensor* pos = g.weight("pos", GgmlType::I32, {1, 1, 1, 1}, &position);
        q_in = g.input("q_in", GgmlType::F32, {kHeadDim, kHeads, 1, 1});
        k_in = g.input("k_in", GgmlType::F32, {kHeadDim, kHeadsKv, 1, 1});
        auto norm = [&](Tensor* x, std::vector<float>& gain, const char* name) {
            return rms_norm(x, 1e-6f, g.weight(name, GgmlType::F32, {kHeadDim, 1, 1, 1}, gain.data()));
        };
        q = rope(norm(q_in, q_gain, "q_gain"), pos, neox);
        Tensor* k = rope(norm(k_in, k_gain, "k_gain"), pos, neox);
        Tensor* c = g.external("k_cache", GgmlType::F16, {kHeadDim, kRows, kHeadsKv, 1}, cache.data());
        k_stored = set_rows(c, permute(k, {0, 2, 1, 3}), pos);
    }
};

struct FrontRun {
    std::vector<float> q, k_row;  // k: the cache row the token went to, every head
    uint32_t dispatches;
};

FrontRun run_front(const std::shared_ptr<VulkanBackend>& vulkan, QkFront& front, bool fuse) {
    Executor e(front.g, {front.q, front.k_stored}, {.backends = {vulkan}, .fuse = fuse});
    test::fill(front.q_in, test::random_floats(size_t(kHeadDim * kHeads), 11, 2.0f));
    test::fill(front.k_in, test::random_floats(size_t(kHeadDim * kHeadsKv), 12, 2.0f));
    e.run();
    FrontRun r{test::values_of(*front.q), {}, 0};
    for (int64_t h = 0; h < kHeadsKv; ++h)
        for (int64_t d = 0; d < kHeadDim; ++d)
            r.k_row.push_back(fp16_to_fp32(front.cache[size_t((h * kRows + front.position) * kHeadDim + d)]));
    const auto work = vulkan->last_recorded_work();
    r.dispatches = work ? work->dispatches : 0;
    return r;
}

TEST(VulkanHeadNormRope, QAndKAreOneDispatchEach) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    QkFront fused_front, apart_front;
    const FrontRun fused = run_front(vulkan, fused_front, true), apart = run_front(vulkan, apart_front, false);
    EXPECT_EQ(fused.dispatches, 2u);
    EXPECT_EQ(apart.dispatches, 5u);
    EXPECT_LE(test::nmse(apart.q, fused.q), 1e-12);
    ASSERT_NE(apart.k_row, std::vector<float>(apart.k_row.size(), 0.0f)) << "the cache row was not written back";
    EXPECT_LE(test::nmse(apart.k_row, fused.k_row), 1e-7);  // fp16 rows: an ulp apart at most
}

// A decode step's attention front as Layer::self_attention builds it: x's
// norm, the q, k and v matvecs (F32 weights), q's and k's head norms and
// ropes, k and v into F16 caches of kRows rows, attention over them; with
// `keys_off_by` > 0 the attention reads K from that many values into the
// cache, which leaves K's rows unaligned for the decode shader.
struct AttentionFront {
    static constexpr int64_t kEmbd = 256;
    Graph g;
    std::vector<std::vector<uint8_t>> weights;
    std::vector<uint16_t> k_cache = std::vector<uint16_t>(size_t(kHeadDim * kRows * kHeadsKv));
    std::vector<uint16_t> v_cache = std::vector<uint16_t>(size_t(kHeadDim * kRows * kHeadsKv));
    int32_t position = 9;
    Tensor *x = nullptr, *out = nullptr;

    explicit AttentionFront(size_t keys_off_by = 0) {
        uint32_t seed = 30;
        auto weight = [&](int64_t rows) {
            weights.push_back(test::random_weights(GgmlType::F32, kEmbd, rows, seed, 0.5f));
            return g.weight("w" + std::to_string(seed++), GgmlType::F32, {kEmbd, rows, 1, 1}, weights.back().data());
        };
        auto gain = [&](int64_t n) {
            weights.push_back(test::random_weights(GgmlType::F32, n, 1, seed, 2.0f));
            return g.weight("g" + std::to_string(seed++), GgmlType::F32, {n, 1, 1, 1}, weights.back().data());
        };
        const RopeParams neox{.n_rot = kHeadDim, .freq_base = 1000000, .freq_scale = 1, .mode = RopeMode::Neox};
        Tensor* pos = g.weight("pos", GgmlType::I32, {1, 1, 1, 1}, &position);
        x = g.input("x", GgmlType::F32, {kEmbd, 1, 1, 1});
        Tensor* h = rms_norm(x, 1e-6f, gain(kEmbd));
        auto heads = [&](int64_t n) { return reshape(matmul(weight(n * kHeadDim), h), {kHeadDim, n, 1, 1}); };
        auto normed_rope = [&](Tensor* t) { return rope(rms_norm(t, 1e-6f, gain(kHeadDim)), pos, neox); };
        Tensor* q = normed_rope(heads(kHeads));
        Tensor* k = normed_rope(heads(kHeadsKv));
        Tensor* v = heads(kHeadsKv);
        const Shape cache{kHeadDim, kRows, kHeadsKv, 1};
        Tensor* kc = set_rows(g.external("k_cache", GgmlType::F16, cache, k_cache.data()), permute(k, {0, 2, 1, 3}), pos);
        Tensor* vc = set_rows(g.external("v_cache", GgmlType::F16, cache, v_cache.data()), permute(v, {0, 2, 1, 3}), pos);
        const Shape keys{kHeadDim, kRows - 1, kHeadsKv, 1};
        if (keys_off_by) {
            kc = view(kc, keys, kc->nb, keys_off_by * sizeof(uint16_t));
            vc = view(vc, keys, vc->nb);
        }
        out = attention(q, kc, vc, pos, 1.0f / std::sqrt(float(kHeadDim)));
    }
};

struct AttentionRun {
    std::vector<float> out;
    RecordedWork work;
};

AttentionRun run_attention(std::shared_ptr<Backend> backend, AttentionFront& front, bool fuse) {
    Executor e(front.g, {front.out}, {.backends = {backend}, .fuse = fuse});
    test::fill(front.x, test::random_floats(size_t(AttentionFront::kEmbd), 13, 2.0f));
    e.run();
    const auto work = backend->last_recorded_work();
    return {test::values_of(*front.out), work.value_or(RecordedWork{})};
}

TEST(VulkanHeadNormRope, KNormRidesItsMatvecAndQNormTheAttention) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    AttentionFront fused_front, apart_front, reference_front;
    const AttentionRun fused = run_attention(vulkan, fused_front, true), apart = run_attention(vulkan, apart_front, false);
    const AttentionRun reference = run_attention(std::make_shared<ReferenceBackend>(), reference_front, false);
    // q, k (its norm, rope and store in its last workgroups), v (into the
    // cache), attention (q's norm and rope): 2 levels.
    EXPECT_EQ(fused.work.dispatches, 4u);
    EXPECT_EQ(fused.work.barriers, 1u);
    EXPECT_EQ(apart.work.dispatches, 11u);
    EXPECT_LE(test::nmse(reference.out, fused.out), 1e-7);
    EXPECT_LE(test::nmse(reference.out, apart.out), 1e-7);
}

TEST(VulkanHeadNormRope, UnalignedKeysLeaveQNormADispatchOfItsOwn) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    AttentionFront fused_front(1), reference_front(1);
    const AttentionRun fused = run_attention(vulkan, fused_front, true);
    const AttentionRun reference = run_attention(std::make_shared<ReferenceBackend>(), reference_front, false);
    // attention.comp instead of the decode shader, after q's norm and rope
    // into scratch memory.
    EXPECT_EQ(fused.work.dispatches, 5u);
    EXPECT_LE(test::nmse(reference.out, fused.out), 1e-7);
}

}  // namespace
}  // namespace tessera
