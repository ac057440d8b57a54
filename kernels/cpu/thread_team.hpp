// One thread's view of the team that runs an op. The executor runs every op
// on all threads of one OpenMP team; a kernel splits its work with split()
// and may synchronize the team with barrier() (every thread must reach it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

namespace tessera::cpu {

struct ThreadTeam {
    int ith = 0;  // this thread, 0 <= ith < nth
    int nth = 1;  // threads in the team

    // Waits for every thread of the team (an orphaned `omp barrier`, so it
    // must be reached inside the team's parallel region, or with nth == 1).
    void barrier() const {
        if (nth > 1) {
#pragma omp barrier
        }
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

}  // namespace tessera::cpu
