// How the Vulkan backend records a segment: barriers only between levels of
// dependent nodes, never between independent ones.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "graph/executor.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

// Two chains that share their first node, as q and k share the normed x:
// h = rms_norm(x); a = silu(silu(h)); b = silu(scale(h)). Three levels, so
// two barriers, however the chains interleave; a depth-first schedule (h, one
// chain, then the other) needed a barrier per node.
TEST(VulkanRecording, BarriersOnlyBetweenLevels) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {64, 1, 1, 1});
    Tensor* h = rms_norm(x, 1e-5f);
    Tensor* a = silu(silu(h));
    Tensor* b = silu(scale(h, 2.0f));
    Executor ex(g, {a, b}, {.backends = {vulkan}});
    std::vector<float> xs(64);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = float(i) / 7.0f - 4.0f;
    std::copy(xs.begin(), xs.end(), static_cast<float*>(x->data));
    ex.run();

    const RecordStats& stats = vulkan->last_record_stats();
    EXPECT_EQ(stats.dispatches, 5u);
    EXPECT_EQ(stats.barriers, 2u);

    double ms = 0;
    for (float v : xs) ms += double(v) * v;
    const double inv_rms = 1.0 / std::sqrt(ms / 64 + 1e-5);
    auto silu_d = [](double v) { return v / (1 + std::exp(-v)); };
    for (size_t i = 0; i < xs.size(); ++i) {
        const double hv = xs[i] * inv_rms;
        EXPECT_NEAR(static_cast<const float*>(a->data)[i], silu_d(silu_d(hv)), 1e-5) << i;
        EXPECT_NEAR(static_cast<const float*>(b->data)[i], silu_d(2 * hv), 1e-5) << i;
    }
}

}  // namespace
}  // namespace tessera
