// Each op's CPU kernel against its scalar reference, through the graph, on
// the cases of op_cases.hpp, with 1-3 threads.
#include <gtest/gtest.h>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"
#include "op_cases.hpp"

namespace tessera {
namespace {

class OpCpu : public testing::TestWithParam<test::OpCase> {};

TEST_P(OpCpu, MatchesReference) {
    const test::OpCase& c = GetParam();
    const std::vector<float> expected = test::evaluate(c, {std::make_shared<ReferenceBackend>()});
    for (int threads : {1, 2, 3}) {
        const std::vector<float> got = test::evaluate(c, {std::make_shared<CpuBackend>(threads)});
        ASSERT_EQ(got.size(), expected.size());
        EXPECT_LE(test::nmse(expected, got), c.max_nmse) << threads << " threads";
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, OpCpu, testing::ValuesIn(test::op_cases()), [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace tessera
