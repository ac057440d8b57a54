// Each op's Vulkan kernel against its scalar reference, on the cases of
// op_cases.hpp (nodes without a Vulkan kernel fall back to the CPU; a case
// whose op has none is skipped, naming it).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/op_def.hpp"
#include "graph/reference_backend.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph_test_util.hpp"
#include "op_cases.hpp"
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
    const bool tensor_cores = bool(vulkan->device().coopmat()) && c.tensor_core_nmse > 0;
    EXPECT_LE(test::nmse(expected, got), tensor_cores ? c.tensor_core_nmse : c.max_nmse);
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

// Q4_0 and Q8_0 weights are regrouped at upload; the same bytes as an
// external buffer are not, so the Vulkan kernels must leave such a matmul
// to the CPU rather than read it in the wrong layout.
TEST(VulkanPlacement, RegroupedTypesOutsideWeightsRunOnTheCpu) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    for (GgmlType type : {GgmlType::Q4_0, GgmlType::Q8_0}) {
        const QuantTypeEntry* entry = find_quant_type(type);
        if (entry == nullptr || entry->gpu_groups.group_blocks == 1) continue;
        static std::map<GgmlType, std::vector<uint8_t>> bytes;
        bytes[type] = test::random_weights(type, 96, 7, 5, 0.5f);
        for (bool external : {false, true}) {
            const test::OpCase c{"regrouped", [type, external](Graph& g) {
                                     Tensor* w = external ? g.external("w", type, {96, 7, 1, 1}, bytes[type].data())
                                                          : g.weight("w", type, {96, 7, 1, 1}, bytes[type].data());
                                     return matmul(w, g.input("in_x", GgmlType::F32, {96, 3, 1, 1}));
                                 },
                                 5e-4};
            {
                Graph g;
                EXPECT_EQ(vulkan->supports(*c.build(g)), !external) << ggml_type_traits(type).name;
            }
            const std::vector<float> expected = test::evaluate(c, {std::make_shared<ReferenceBackend>()});
            const std::vector<float> got = test::evaluate(c, {vulkan, std::make_shared<CpuBackend>()});
            ASSERT_EQ(got.size(), expected.size());
            EXPECT_LE(test::nmse(expected, got), c.max_nmse) << ggml_type_traits(type).name << " external " << external;
        }
    }
}

}  // namespace
}  // namespace tessera
