// Qwen3's per-head q and k norms before rope on Vulkan
// (graph/vulkan/kernels/head_norm_rope.hpp): a token's q (norm, rope) and k
// (norm, rope, store into an F16 cache) are one dispatch each, and give what
// the five nodes give on their own.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "graph/executor.hpp"
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

}  // namespace
}  // namespace tessera
