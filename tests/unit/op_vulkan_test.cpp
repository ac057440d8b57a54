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

INSTANTIATE_TEST_SUITE_P(Ops, OpVulkan, testing::ValuesIn(test::op_cases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera
