// STREAM-like read bandwidth, shared by the machine and matmul benchmarks.
#pragma once

#include <cstddef>

namespace tessera::bench {

// Threads of every benchmark: 2, or TESSERA_BENCH_THREADS.
int bench_threads();

// Bytes per second `threads` threads read from a buffer of `bytes` (each
// thread sums its share as four ascending streams, see stream_read.cpp).
double read_bandwidth(const float* data, size_t bytes, int threads);

// read_bandwidth over a fresh 512 MiB buffer with bench_threads() threads, measured once.
double stream_read_bytes_per_second();

}  // namespace tessera::bench
