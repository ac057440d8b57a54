// One thread's view of the team that runs an op. The executor runs every op
// on all threads of one OpenMP team (run_team); a kernel splits its work with
// split() and may synchronize the team with barrier() (every thread must
// reach it).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "kernels/cpu/team_barrier.hpp"

namespace tessera::cpu {

struct ThreadTeam {
    int ith = 0;  // this thread, 0 <= ith < nth
    int nth = 1;  // threads in the team
    TeamBarrier* sync = nullptr;  // shared by the team; needed when nth > 1

    // Waits for every thread of the team.
    void barrier() const {
        if (nth > 1) sync->arrive_and_wait(nth);
    }

    // This thread's share [begin, end) of n items, in chunks of `grain`
    // items (the last chunk may be short); contiguous, balanced to a chunk.
    std::pair<int64_t, int64_t> split(int64_t n, int64_t grain = 1) const {
        const int64_t chunks = (n + grain - 1) / grain;
        const int64_t begin = chunks * ith / nth * grain;
        const int64_t end = chunks * (ith + 1) / nth * grain;
        return {std::min(begin, n), std::min(end, n)};
    }
};

// Calls f(team) on each thread of an OpenMP team of `threads` (or as many as
// the runtime gives), all sharing one barrier.
template <class F>
void run_team(int threads, F&& f) {
    TeamBarrier sync(threads);
#pragma omp parallel num_threads(threads)
    f(ThreadTeam{omp_get_thread_num(), omp_get_num_threads(), &sync});
}

}  // namespace tessera::cpu
