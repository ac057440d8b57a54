#include "graph/memory_plan.hpp"

#include <gtest/gtest.h>

#include <climits>
#include <random>

namespace tessera {
namespace {

bool overlap_in_time(const LiveInterval& a, const LiveInterval& b) { return a.first <= b.last && b.first <= a.last; }

TEST(MemoryPlan, LiveTensorsNeverShareBytes) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<LiveInterval> intervals;
        for (int i = 0; i < 60; ++i) {
            const int first = int(rng() % 40) - 1;
            const int last = rng() % 10 == 0 ? INT_MAX : first + 1 + int(rng() % 8);
            intervals.push_back({size_t(1 + rng() % 5000), first, last});
        }
        const MemoryPlan plan = plan_memory(intervals);
        for (size_t i = 0; i < intervals.size(); ++i) {
            EXPECT_EQ(plan.offsets[i] % 64, 0u);
            EXPECT_LE(plan.offsets[i] + intervals[i].bytes, plan.peak_bytes);
            for (size_t j = i + 1; j < intervals.size(); ++j) {
                if (!overlap_in_time(intervals[i], intervals[j])) continue;
                const bool apart = plan.offsets[i] + intervals[i].bytes <= plan.offsets[j] ||
                                   plan.offsets[j] + intervals[j].bytes <= plan.offsets[i];
                ASSERT_TRUE(apart) << "trial " << trial << ": intervals " << i << " and " << j << " overlap";
            }
        }
    }
}

TEST(MemoryPlan, AChainReusesTwoBuffers) {
    // Step i writes tensor i and reads tensor i-1: two buffers suffice.
    std::vector<LiveInterval> chain;
    for (int i = 0; i < 100; ++i) chain.push_back({1024, i, i + 1});
    EXPECT_EQ(plan_memory(chain).peak_bytes, 2u * 1024);
}

TEST(MemoryPlan, KeptTensorsAreNotReused) {
    std::vector<LiveInterval> v = {{64, 0, INT_MAX}, {64, 1, 2}, {64, 3, 4}};
    const MemoryPlan plan = plan_memory(v);
    EXPECT_NE(plan.offsets[0], plan.offsets[1]);
    EXPECT_NE(plan.offsets[0], plan.offsets[2]);
    EXPECT_EQ(plan.offsets[1], plan.offsets[2]);
    EXPECT_EQ(plan.peak_bytes, 128u);
}

}  // namespace
}  // namespace tessera
