// The CPU team's barrier (kernels/cpu/team_barrier.hpp): what any thread
// wrote before a barrier is what every thread reads after it, round after
// round, with fewer threads than cores and with more (where waiters sleep).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kernels/cpu/thread_team.hpp"

namespace tessera {
namespace {

TEST(ThreadTeam, BarrierOrdersEveryRound) {
    for (int threads : {1, 2, 3, 8}) {
        constexpr int kRounds = 2000;
        std::vector<int> slots(size_t(threads), -1);
        std::atomic<int> wrong{0}, team_size{0};
        cpu::run_team(threads, [&](const cpu::ThreadTeam& team) {
            if (team.ith == 0) team_size = team.nth;
            for (int round = 0; round < kRounds; ++round) {
                slots[size_t(team.ith)] = round;
                team.barrier();
                for (int t = 0; t < team.nth; ++t)
                    if (slots[size_t(t)] != round) ++wrong;
                team.barrier();  // every read is done before the next round's writes
            }
        });
        EXPECT_EQ(wrong.load(), 0) << threads << " threads";
        EXPECT_GE(team_size.load(), 1);
    }
}

// A thread that arrives long after the others (here 5 ms, past the spinning)
// still releases them, and they see its writes.
TEST(ThreadTeam, BarrierWakesSleepingWaiters) {
    int late_value = 0;
    std::atomic<int> seen{0}, team_size{0};
    cpu::run_team(3, [&](const cpu::ThreadTeam& team) {
        if (team.ith == 0) team_size = team.nth;
        for (int round = 1; round <= 3; ++round) {
            if (team.ith == team.nth - 1) {
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
                late_value = round;
            }
            team.barrier();
            if (late_value == round) ++seen;
            team.barrier();
        }
    });
    // Every thread of the team (as many as the runtime gave) saw all three rounds.
    EXPECT_EQ(seen.load(), 3 * team_size.load());
}

}  // namespace
}  // namespace tessera
