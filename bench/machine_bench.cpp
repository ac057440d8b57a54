// The machine's limits that the kernels are judged against: read bandwidth
// from DRAM and FMA throughput, both with bench_threads() threads (2 unless TESSERA_BENCH_THREADS says).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>

#include "bench/roofline.hpp"
#include "bench/stream_read.hpp"

namespace tessera::bench {
namespace {

void BM_StreamRead(benchmark::State& state) {
    const size_t bytes = size_t(state.range(0)) << 20;
    auto* data = static_cast<float*>(std::aligned_alloc(64, bytes));
    std::memset(data, 0, bytes);
    double seconds = 0.0;
    for (auto _ : state) {
        const double bw = read_bandwidth(data, bytes, bench_threads());
        seconds += double(bytes) / bw;
        state.SetIterationTime(double(bytes) / bw);
    }
    state.counters["GB/s"] = benchmark::Counter(double(bytes) * double(state.iterations()) / seconds / 1e9);
    std::free(data);
}
BENCHMARK(BM_StreamRead)->Arg(512)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_FmaPeak(benchmark::State& state) {
    constexpr int64_t kIterations = 1 << 22;
    float sink = 0.0f;
    for (auto _ : state) {
#pragma omp parallel num_threads(bench_threads())
        {
            const float s = fma_chains(kIterations);
#pragma omp atomic
            sink += s;
        }
        benchmark::DoNotOptimize(sink);
    }
    const double flops = fma_chain_flops(kIterations) * bench_threads();
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_FmaPeak)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tessera::bench
