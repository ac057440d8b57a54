#include "bench/stream_read.hpp"

#include <omp.h>

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <xsimd/xsimd.hpp>

#include "support/huge_pages.hpp"

namespace tessera::bench {

int bench_threads() {
    static const int threads = [] {
        const char* env = std::getenv("TESSERA_BENCH_THREADS");
        return env ? std::max(1, std::atoi(env)) : 2;
    }();
    return threads;
}

namespace {

// Sum of n floats (a multiple of kStreams * 8 batches) read as kStreams
// ascending streams, one per consecutive part, two independent accumulators
// each, so that loads, not adds, limit it. Several streams per thread, as the
// matvec reads its rows: one stream per thread reads less from DRAM
// (docs/measured-choices.md#read-bandwidth-streams).
constexpr size_t kStreams = 4;

float sum_floats(const float* p, size_t n) {
    using Batch = xsimd::batch<float>;
    constexpr size_t W = Batch::size;
    const size_t part = n / kStreams;
    Batch acc[kStreams][2];
    for (auto& a : acc) a[0] = a[1] = Batch(0.0f);
    for (size_t i = 0; i < part; i += 2 * W)
        for (size_t s = 0; s < kStreams; ++s) {
            acc[s][0] += Batch::load_unaligned(p + s * part + i);
            acc[s][1] += Batch::load_unaligned(p + s * part + i + W);
        }
    Batch total(0.0f);
    for (const auto& a : acc) total += a[0] + a[1];
    return xsimd::hadd(total);
}

}  // namespace

double read_bandwidth(const float* data, size_t bytes, int threads) {
    // Each thread's share: a multiple of kStreams * 1024 floats.
    const size_t per = bytes / sizeof(float) / size_t(threads) / (kStreams * 1024) * (kStreams * 1024);
    float sink = 0.0f;
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    {
        const float s = sum_floats(data + per * size_t(omp_get_thread_num()), per);
#pragma omp atomic
        sink += s;
    }
    asm volatile("" : : "r"(sink));  // keep the sums
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return double(per * size_t(threads) * sizeof(float)) / seconds;
}

double stream_read_bytes_per_second() {
    static const double measured = [] {
        constexpr size_t kBytes = size_t(512) << 20;
        // On huge pages like the matvecs' weights (support/huge_pages.hpp).
        const HugePageBuffer buffer = allocate_huge_pages(kBytes);
        auto* data = reinterpret_cast<float*>(buffer.get());
        std::memset(data, 0, kBytes);
        double best = 0.0;
        for (int rep = 0; rep < 20; ++rep) {  // best of many: other processes share the machine
            const double bw = read_bandwidth(data, kBytes, bench_threads());
            best = bw > best ? bw : best;
        }
        return best;
    }();
    return measured;
}

}  // namespace tessera::bench
