// The AMX-INT8 tiles' multiply throughput, the ceiling of the q16 prompt
// matmul where the CPU has them (kernels/cpu/matmul/amx_gemm.hpp):
//   BM_AmxInt8Peak/depth:<K>: tdpbusd of 16 x K bytes by K x 16 into four
//   independent int32 tiles, nothing loaded or stored in the loop, on
//   bench_threads() threads; K = 64 is a tile's full depth, K = 32 the depth
//   the kernel uses (one group of 32 values, which has its own scales).
//   Reports GOP/s (two per multiply-add, comparable with BM_FmaPeak's GFLOP/s).
// Registered only where cpu::amx_usable().
#include <benchmark/benchmark.h>

#include <cstdint>

#include "bench/stream_read.hpp"
#include "kernels/cpu/amx.hpp"

#ifdef TESSERA_AMX_BUILT
#include <immintrin.h>

namespace tessera::bench {
namespace {

// Tiles 0-3: int32 sums (16 x 16); 4: A (16 x depth bytes); 5: B (depth / 4 x 64 bytes).
cpu::AmxTileConfig config(int depth) {
    cpu::AmxTileConfig c;
    for (int t = 0; t < 4; ++t) {
        c.bytes_per_row[t] = 64;
        c.rows[t] = 16;
    }
    c.bytes_per_row[4] = uint16_t(depth);
    c.rows[4] = 16;
    c.bytes_per_row[5] = 64;
    c.rows[5] = uint8_t(depth / 4);
    return c;
}

void multiply(int depth, int64_t iterations) {
    const cpu::AmxTileConfig c = config(depth);
    alignas(64) static const int8_t ones[16 * 64] = {};
    _tile_loadconfig(&c);
    _tile_loadd(4, ones, 64);
    _tile_loadd(5, ones, 64);
    _tile_zero(0);  // tile numbers are immediates: no loop
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    for (int64_t i = 0; i < iterations; ++i) {
        _tile_dpbusd(0, 4, 5);
        _tile_dpbusd(1, 4, 5);
        _tile_dpbusd(2, 4, 5);
        _tile_dpbusd(3, 4, 5);
    }
    alignas(64) int32_t sums[16 * 16];
    _tile_stored(0, sums, 64);
    benchmark::DoNotOptimize(sums);
    _tile_release();
}

void BM_AmxInt8Peak(benchmark::State& state) {
    const int depth = int(state.range(0));
    constexpr int64_t kIterations = 1 << 16;
    for (auto _ : state) {
#pragma omp parallel num_threads(bench_threads())
        multiply(depth, kIterations);
    }
    const double ops = 2.0 * 4 * 16 * 16 * depth * double(kIterations) * bench_threads();
    state.counters["GOP/s"] = benchmark::Counter(ops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

const int registered = [] {
    if (cpu::amx_usable())
        benchmark::RegisterBenchmark("BM_AmxInt8Peak", BM_AmxInt8Peak)
            ->Arg(64)
            ->Arg(32)
            ->ArgName("depth")
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
    return 0;
}();

}  // namespace
}  // namespace tessera::bench
#endif
