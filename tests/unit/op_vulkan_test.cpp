// Each op's Vulkan kernel against its scalar reference, on the cases of
// op_cases.hpp (nodes without a Vulkan kernel fall back to the CPU; a case
// whose op has none is skipped, naming it).
#include <gtest/gtest.h>

#include "graph/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"
#include "op_cases.hpp"
#include "ops/op_def.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

class OpVulkan : public testing::TestWithParam<test::OpCase> {};

TEST_P(OpVulkan, MatchesReference) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const test::OpCase& c = GetParam();
    {
        Graph g;
        Tensor* out = c.build(g);
        if (!vulkan->supports(*out))
            GTEST_SKIP() << "no Vulkan kernel for " << out->op->name << " on " << describe(*out);
    }
    const std::vector<float> expected = test::evaluate(c, {std::make_shared<ReferenceBackend>()});
    const std::vector<float> got = test::evaluate(c, {vulkan, std::make_shared<CpuBackend>()});
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_LE(test::nmse(expected, got), c.max_nmse);
}

// set_rows has a Vulkan kernel, attention with head_dim 320 has not: the
// cache they share must not be written on the device and read on the host.
TEST(VulkanPlacement, NodesSharingAnExternalBufferRunOnOneBackend) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    static std::vector<uint16_t> cache(320 * 6);
    const test::OpCase c{"split_cache", [](Graph& g) {
                             std::fill(cache.begin(), cache.end(), 0);  // no rows left from an earlier run
                             Tensor* kc = g.external("cache", GgmlType::F16, {320, 6, 1, 1}, cache.data());
                             Tensor* pos = g.input("in_pos", GgmlType::I32, {2, 1, 1, 1});
                             Tensor* k = set_rows(kc, g.input("in_k", GgmlType::F32, {320, 2, 1, 1}), pos);
                             Tensor* kv = view(k, {320, 3, 1, 1}, k->nb);
                             return attention(g.input("in_q", GgmlType::F32, {320, 1, 2, 1}), kv, kv, pos, 0.05f);
                         },
                         1e-7};
    {
        Graph g;
        Tensor* out = c.build(g);
        ASSERT_FALSE(vulkan->supports(*out));
        ASSERT_TRUE(vulkan->supports(*out->src[1]->src[0]));  // the set_rows
    }
    const std::vector<float> expected = test::evaluate(c, {std::make_shared<ReferenceBackend>()});
    const std::vector<float> got = test::evaluate(c, {vulkan, std::make_shared<CpuBackend>()});
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_LE(test::nmse(expected, got), c.max_nmse);
}

INSTANTIATE_TEST_SUITE_P(Ops, OpVulkan, testing::ValuesIn(test::op_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera
