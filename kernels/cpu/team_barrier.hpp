// The barrier between the ops a CPU team runs (ThreadTeam::barrier), a
// fraction of the cost of an OpenMP barrier, which a token crosses some 310
// times (docs/measured-choices.md#the-team-barrier). Waiters spin first,
// then sleep in atomic::wait, so that a long wait (a serial stretch) gives
// the core back; a team with more threads than the machine's cores sleeps at
// once, since a spinning waiter there takes the core from the thread it
// waits for.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tessera::cpu {

class TeamBarrier {
public:
    // For a team of up to `threads` threads.
    explicit TeamBarrier(int threads) : spins_(oversubscribed(threads) ? 0 : kSpins) {}

    // Returns once `threads` threads (the same count every time) have called it.
    void arrive_and_wait(int threads) {
        const uint32_t generation = generation_.load(std::memory_order_acquire);
        if (arrived_.fetch_add(1, std::memory_order_acq_rel) == threads - 1) {
            arrived_.store(0, std::memory_order_relaxed);
            generation_.store(generation + 1, std::memory_order_release);
            generation_.notify_all();  // no system call unless a thread sleeps
            return;
        }
        for (int i = 0; i < spins_; ++i) {
            if (generation_.load(std::memory_order_acquire) != generation) return;
            relax();
        }
        while (generation_.load(std::memory_order_acquire) == generation)
            generation_.wait(generation, std::memory_order_acquire);
    }

private:
    // A few hundred microseconds of spinning before sleeping
    // (docs/measured-choices.md#the-team-barrier).
    static constexpr int kSpins = 1 << 14;

    static bool oversubscribed(int threads) {
        // Asked once: glibc reads /sys for it, and a team is made per graph run.
        static const unsigned cores = std::thread::hardware_concurrency();  // 0: unknown
        return cores != 0 && unsigned(threads) > cores;
    }

    static void relax() {
#if defined(__x86_64__) || defined(__i386__)
        _mm_pause();
#endif
    }

    const int spins_;
    // In one cache line: the last arrival then moves one line between cores,
    // not two (docs/measured-choices.md#the-team-barrier).
    alignas(64) std::atomic<int> arrived_{0};
    std::atomic<uint32_t> generation_{0};
};

}  // namespace tessera::cpu
