#include "bench/roofline.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <xsimd/xsimd.hpp>

#include "bench/stream_read.hpp"

namespace tessera::bench {
namespace {
constexpr int kChains = 12;
}  // namespace

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

double fma_chain_flops(int64_t iterations) { return 2.0 * xsimd::batch<float>::size * kChains * double(iterations); }

double fma_peak_flops_per_second() {
    static const double measured = [] {
        constexpr int64_t kIterations = 1 << 22;
        double best = 0.0;
        for (int rep = 0; rep < 5; ++rep) {
            float sink = 0.0f;
            const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(bench_threads())
            {
                const float s = fma_chains(kIterations);
#pragma omp atomic
                sink += s;
            }
            asm volatile("" : : "r"(sink));
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            const double flops = fma_chain_flops(kIterations) * bench_threads();
            best = std::max(best, flops / seconds);
        }
        return best;
    }();
    return measured;
}

double roofline_seconds(double flops, double bytes) {
    return std::max(flops / fma_peak_flops_per_second(), bytes / stream_read_bytes_per_second());
}

}  // namespace tessera::bench
