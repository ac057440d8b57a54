// Wall time of an executor's runs under a Google Benchmark state, shared by
// the benchmarks that time whole graphs rather than single kernels.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>

#include "graph/executor.hpp"

namespace tessera::bench {

// Runs `exec` once untimed (a device records its command buffers then),
// then once per iteration; returns the mean seconds of a timed run.
inline double seconds_per_run(benchmark::State& state, Executor& exec) {
    exec.run();
    double seconds = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        exec.run();
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    return seconds / double(state.iterations());
}

}  // namespace tessera::bench
