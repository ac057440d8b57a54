// The machine's limits that the kernels are judged against: read bandwidth
// from DRAM and FMA throughput, both with bench_threads() threads (2 unless TESSERA_BENCH_THREADS says).
#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdlib>
#include <cstring>
#include <xsimd/xsimd.hpp>

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

// kChains independent FMA chains per thread hide the FMA latency.
template <int kChains>
float fma_chains(int64_t iterations) {
    using Batch = xsimd::batch<float>;
    Batch acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = Batch(float(c));
    const Batch a(0.999999f), b(1e-7f);
    for (int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c) acc[c] = xsimd::fma(acc[c], a, b);
    Batch total(0.0f);
    for (int c = 0; c < kChains; ++c) total += acc[c];
    return xsimd::hadd(total);
}

void BM_FmaPeak(benchmark::State& state) {
    constexpr int kChains = 12;
    constexpr int64_t kIterations = 1 << 22;
    float sink = 0.0f;
    for (auto _ : state) {
#pragma omp parallel num_threads(bench_threads())
        {
            const float s = fma_chains<kChains>(kIterations);
#pragma omp atomic
            sink += s;
        }
        benchmark::DoNotOptimize(sink);
    }
    const double flops = 2.0 * xsimd::batch<float>::size * kChains * double(kIterations) * bench_threads();
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_FmaPeak)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tessera::bench
