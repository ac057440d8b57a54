// The machine's roofline for the op benchmarks: DRAM read bandwidth and FMA
// peak, measured once by this binary (bench_threads() threads).
#pragma once

#include <cstdint>

namespace tessera::bench {

// Independent F32 FMA chains (enough to hide the FMA latency) on the
// calling thread, `iterations` steps each; returns their sum. Work:
// fma_chain_flops(iterations).
float fma_chains(int64_t iterations);
double fma_chain_flops(int64_t iterations);

// FLOP/s of independent F32 FMA chains on every thread, best of a few runs.
double fma_peak_flops_per_second();

// The least time the roofline allows for `flops` and `bytes`:
// max(flops / FMA peak, bytes / read bandwidth). A run's fraction of the
// roofline is this over its time.
double roofline_seconds(double flops, double bytes);

}  // namespace tessera::bench
