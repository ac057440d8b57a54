// Issue 40's matvec chain (bench/vulkan_overlap_chain.hpp) in every mode
// against a CPU reference. On lavapipe, which runs a command buffer's
// dispatches one after another, an overlap level never waits, and the
// persistent mode runs with one workgroup (lavapipe runs a workgroup to its
// end, so a second could wait on one that never starts), which has counted
// itself in every level before it waits for it: this checks the arithmetic,
// each level's vectors and the counters (a level that did not find its
// predecessor's count would report giving up), not that loads overlap.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "bench/vulkan_overlap_chain.hpp"
#include "graph_test_util.hpp"
#include "kernels/quant/half.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

using bench::ChainMode;
using bench::MatvecChain;

// y = W_(L-1) ... W_0 x in double, from the F16 weights as stored.
std::vector<double> reference_chain(const std::vector<std::vector<uint16_t>>& matrices, const std::vector<float>& x,
                                    int64_t dim) {
    std::vector<double> v(x.begin(), x.end()), next(static_cast<size_t>(dim));
    for (const auto& w : matrices) {
        for (int64_t r = 0; r < dim; ++r) {
            double s = 0;
            for (int64_t c = 0; c < dim; ++c) s += double(fp16_to_fp32(w[size_t(r * dim + c)])) * v[size_t(c)];
            next[size_t(r)] = s;
        }
        v.swap(next);
    }
    return v;
}

TEST(VulkanOverlapChain, EveryModeComputesTheChainOfEveryLevelsWeights) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::shared_ptr<VulkanDevice> device = open_vulkan_device();  // the backend's
    constexpr int64_t kLevels = 5;
    for (const uint32_t rows : {4u, 8u}) {
        const int64_t dim = 2 * MatvecChain::dim_multiple(*device, rows);
        std::vector<std::vector<uint16_t>> matrices;  // a distinct W per level
        for (int64_t l = 0; l < kLevels; ++l) {
            auto& w = matrices.emplace_back();
            for (float v : test::random_floats(size_t(dim * dim), uint32_t(10 + l), 1.0f / std::sqrt(float(dim))))
                w.push_back(fp32_to_fp16(v));
        }
        const std::array<std::vector<float>, 2> inputs{test::random_floats(size_t(dim), 1),
                                                       test::random_floats(size_t(dim), 2)};
        MatvecChain chain(device, dim, kLevels, rows, /*persistent_groups=*/1, matrices, inputs);
        for (int input : {0, 1, 0}) {
            const std::vector<double> want = reference_chain(matrices, inputs[size_t(input)], dim);
            for (ChainMode mode : {ChainMode::Barriers, ChainMode::Overlap, ChainMode::Persistent}) {
                chain.run(mode, input);
                const std::vector<float> got = chain.output(mode);
                for (int64_t i = 0; i < dim; ++i)
                    ASSERT_NEAR(got[size_t(i)], want[size_t(i)], 1e-4 * (1 + std::fabs(want[size_t(i)])))
                        << "rows " << rows << ", input " << input << ", mode " << int(mode) << ", element " << i;
            }
        }
        EXPECT_FALSE(chain.gave_up(ChainMode::Overlap));
        EXPECT_FALSE(chain.gave_up(ChainMode::Persistent));
    }
}

// dim must split into whole pieces of 8 halves per invocation and whole rows per workgroup.
TEST(VulkanOverlapChain, RefusesADimThatDoesNotSplitIntoItsWorkgroups) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::shared_ptr<VulkanDevice> device = open_vulkan_device();  // the backend's
    const int64_t dim = MatvecChain::dim_multiple(*device, 8) + 8;
    EXPECT_THROW(MatvecChain(device, dim, 2, 8, 1, {std::vector<uint16_t>(size_t(dim * dim))},
                             {std::vector<float>(size_t(dim)), std::vector<float>(size_t(dim))}),
                 VulkanUnavailable);
}

}  // namespace
}  // namespace tessera
