// AVX-512 VNNI's 16-bit dot product throughput, the ceiling of the q16
// prompt matmul where it takes the product (kernels/cpu/matmul/vnni_gemm.hpp):
//   BM_VnniInt16Peak: vpdpwssd into twelve independent int32 vectors (enough
//   to hide its latency), nothing loaded or stored in the loop, on
//   bench_threads() threads. Reports GOP/s (two per multiply-add: a vpdpwssd
//   is 32), comparable with BM_FmaPeak's GFLOP/s.
// Registered only where the build targets VNNI.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/stream_read.hpp"

#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
#include <immintrin.h>

namespace tessera::bench {
namespace {

constexpr int kChains = 12;

void multiply(int64_t iterations) {
    __m512i sums[kChains];
    for (int c = 0; c < kChains; ++c) sums[c] = _mm512_set1_epi32(c);
    __m512i a = _mm512_set1_epi16(3), b = _mm512_set1_epi16(-2);
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    for (int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < kChains; ++c) sums[c] = _mm512_dpwssd_epi32(sums[c], a, b);
    for (auto& s : sums) benchmark::DoNotOptimize(s);
}

void BM_VnniInt16Peak(benchmark::State& state) {
    constexpr int64_t kIterations = 1 << 20;
    for (auto _ : state) {
#pragma omp parallel num_threads(bench_threads())
        multiply(kIterations);
    }
    const double ops = 2.0 * 32 * kChains * double(kIterations) * bench_threads();
    state.counters["GOP/s"] = benchmark::Counter(ops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

BENCHMARK(BM_VnniInt16Peak)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tessera::bench
#endif
