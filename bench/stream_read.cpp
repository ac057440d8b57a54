#include "bench/stream_read.hpp"

#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <xsimd/xsimd.hpp>

namespace tessera::bench {

int bench_threads() {
    static const int threads = [] {
        const char* env = std::getenv("TESSERA_BENCH_THREADS");
        return env ? std::max(1, std::atoi(env)) : 2;
    }();
    return threads;
}

namespace {

// Sum of n floats with eight independent accumulators, so that loads, not adds, limit it.
float sum_floats(const float* p, size_t n) {
    using Batch = xsimd::batch<float>;
    constexpr size_t W = Batch::size;
    Batch acc[8];
    for (auto& a : acc) a = Batch(0.0f);
    for (size_t i = 0; i + 8 * W <= n; i += 8 * W)
        for (size_t u = 0; u < 8; ++u) acc[u] += Batch::load_aligned(p + i + u * W);
    Batch total(0.0f);
    for (const auto& a : acc) total += a;
    return xsimd::hadd(total);
}

}  // namespace

double read_bandwidth(const float* data, size_t bytes, int threads) {
    const size_t n = bytes / sizeof(float);
    float sink = 0.0f;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
        const size_t per = n / size_t(threads) / 1024 * 1024;
        const float s = sum_floats(data + per * size_t(omp_get_thread_num()), per);
#pragma omp atomic
        sink += s;
    }
    asm volatile("" : : "r"(sink));  // keep the sums
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return double(n / size_t(threads) / 1024 * 1024 * size_t(threads) * sizeof(float)) / seconds;
}

double stream_read_bytes_per_second() {
    static const double measured = [] {
        constexpr size_t kBytes = size_t(512) << 20;
        auto* data = static_cast<float*>(std::aligned_alloc(64, kBytes));
        std::memset(data, 0, kBytes);
        double best = 0.0;
        for (int rep = 0; rep < 20; ++rep) {  // best of many: other processes share the machine
            const double bw = read_bandwidth(data, kBytes, bench_threads());
            best = bw > best ? bw : best;
        }
        std::free(data);
        return best;
    }();
    return measured;
}

}  // namespace tessera::bench
