// CPU matmul at TinyLlama's shapes with bench_threads() threads (2 unless TESSERA_BENCH_THREADS says),
// all calls on one team (cpu::run_team), as the executor runs ops.
//   BM_Matvec/<type>/<k>/<n>: one token. Rotates through copies of the matrix
//     totalling >= 256 MiB so that they come from DRAM, alternating with STREAM
//     reads of the same bytes; reports the weight bytes read per second
//     (GB/s), the STREAM rate beside it and their ratio (of_stream), and the
//     time of one call (us/call). An iteration is one pass over the copies.
//   BM_MatvecHot/<type>/<k>/<n>: one token, one matrix that stays in cache
//     (n = 256: L2; n = 1024: L2 or L3): the kernel's compute ceiling, in
//     weight bytes per second; the difference of the two us/call is the cost
//     of 768 rows without the call's fixed part (activations, barriers).
//   BM_Matmul/<type>/<k>/<n>: 512 tokens at the prompt shapes of TinyLlama and
//     Llama-2-7B; reports GFLOP/s (2*n*k*m per call) and its fraction of this
//     binary's measured F32 FMA peak (of_fma_peak: roofline.hpp), the bound of
//     the default (q16) path, which multiplies in F32 (the integer paths,
//     AMX tiles or VNNI where the CPU and build have them, are not bound by
//     it). BM_Matmul/<type>/q16/f32_gemm: the F32 GEMM where an integer path
//     takes the type (cpu::allow_integer_gemm).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "bench/random_values.hpp"
#include "bench/roofline.hpp"
#include "bench/stream_read.hpp"
#include "kernels/cpu/integer_gemm.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/quant/registry.hpp"
#include "support/huge_pages.hpp"

namespace tessera::bench {
namespace {

struct AlignedFree {
    void operator()(void* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<uint8_t, AlignedFree>;

Buffer aligned_buffer(size_t bytes) {
    return Buffer(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64)));
}

// `copies` copies of one n x k matrix of the type, quantized from random
// values, on huge pages as `tessera` holds a model's weights for the CPU
// (support/huge_pages.hpp).
HugePageBuffer weight_copies(const QuantTypeEntry& type, int64_t n, int64_t k, size_t copies) {
    const size_t bytes = size_t(n) * type.row_bytes(k);
    HugePageBuffer w = allocate_huge_pages(bytes * copies);
    const std::vector<float> values = random_floats(size_t(n * k), 1);
    type.quantize(values.data(), w.get(), n * k);
    for (size_t c = 1; c < copies; ++c) std::memcpy(w.get() + c * bytes, w.get(), bytes);
    return w;
}

// Times matmul calls on one team until the state is done; thread 0
// drives the state and sets the arguments of each call with next(args).
template <class Next>
void run_calls(benchmark::State& state, cpu::MatmulArgs args, void* work, Next next) {
    bool running = true;
    cpu::run_team(bench_threads(), [&](const cpu::ThreadTeam& team) {
        for (;;) {
            if (team.ith == 0) {
                running = state.KeepRunning();
                if (running) next(args);
            }
            team.barrier();
            if (!running) break;
            cpu::matmul(args, work, team);
            team.barrier();
        }
    });
}

// Seconds of `calls` matmul calls on one team, the weights of call c at
// w + (c % copies) * bytes.
double timed_calls(cpu::MatmulArgs args, void* work, const uint8_t* w, size_t bytes, size_t copies, size_t calls) {
    const auto start = std::chrono::steady_clock::now();
    cpu::run_team(bench_threads(), [&](const cpu::ThreadTeam& team) {
        cpu::MatmulArgs a = args;
        for (size_t c = 0; c < calls; ++c) {
            a.w = w + c % copies * bytes;
            cpu::matmul(a, work, team);
            team.barrier();
        }
    });
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One token. BM_Matvec: each iteration is one pass of matvecs over copies of
// the matrix totalling >= 256 MiB (so they come from DRAM), then one STREAM
// read of those same bytes; of_stream is the ratio of the two rates. Pairing
// them this way keeps the ratio steady on a machine whose bandwidth changes
// from one second to the next (a VM with neighbours). BM_MatvecHot: one
// matrix that stays in cache, against the STREAM figure of BM_StreamRead.
void matvec(benchmark::State& state, GgmlType id, ActivationPrecision act, size_t min_bytes) {
    const QuantTypeEntry& type = *find_quant_type(id);
    const int64_t k = state.range(0), n = state.range(1);
    const size_t bytes = size_t(n) * type.row_bytes(k);
    const size_t copies = std::max<size_t>(1, (min_bytes + bytes - 1) / bytes);
    const bool paired = min_bytes > 0;
    const size_t calls = paired ? copies : std::max<size_t>(1, (size_t(64) << 20) / bytes);
    const HugePageBuffer w = weight_copies(type, n, k, copies);
    const std::vector<float> x = random_floats(size_t(k), 2);
    std::vector<float> y(static_cast<size_t>(n));
    const Buffer work = aligned_buffer(cpu::matmul_work_bytes(id, k, 1, act, bench_threads()));
    const cpu::MatmulArgs args{id, nullptr, type.row_bytes(k), x.data(), 0, y.data(), 0, n, k, 1, act};
    double matvec_seconds = 0.0, stream_rate_sum = 0.0;
    for (auto _ : state) {
        const double seconds = timed_calls(args, work.get(), w.get(), bytes, copies, calls);
        state.SetIterationTime(seconds);
        matvec_seconds += seconds;
        if (paired)
            stream_rate_sum += read_bandwidth(reinterpret_cast<const float*>(w.get()), bytes * copies, bench_threads());
    }
    benchmark::DoNotOptimize(y.data());
    const double rate = double(bytes * calls) * double(state.iterations()) / matvec_seconds;
    const double stream = paired ? stream_rate_sum / double(state.iterations()) : stream_read_bytes_per_second();
    state.counters["GB/s"] = benchmark::Counter(rate / 1e9);
    state.counters["stream_GB/s"] = benchmark::Counter(stream / 1e9);
    state.counters["of_stream"] = benchmark::Counter(rate / stream);
    state.counters["us/call"] = benchmark::Counter(matvec_seconds / double(calls * state.iterations()) * 1e6);
}

void BM_Matvec(benchmark::State& state, GgmlType id, ActivationPrecision act) {
    matvec(state, id, act, size_t(256) << 20);
}
void BM_MatvecHot(benchmark::State& state, GgmlType id, ActivationPrecision act) { matvec(state, id, act, 0); }

void BM_Matmul(benchmark::State& state, GgmlType id, ActivationPrecision act, bool integer) {
    const QuantTypeEntry& type = *find_quant_type(id);
    const int64_t k = state.range(0), n = state.range(1), m = 512;
    const HugePageBuffer w = weight_copies(type, n, k, 1);
    const std::vector<float> x = random_floats(size_t(m * k), 2);
    std::vector<float> y(size_t(m * n));
    cpu::allow_integer_gemm(integer);  // before sizing the work buffer, which depends on the path
    const Buffer work = aligned_buffer(cpu::matmul_work_bytes(id, k, m, act, bench_threads()));
    const cpu::MatmulArgs args{id, w.get(), type.row_bytes(k), x.data(), size_t(k) * 4, y.data(), size_t(n) * 4,
                               n, k, m, act};
    const double flops = 2.0 * double(n * k * m), peak = fma_peak_flops_per_second();
    const auto start = std::chrono::steady_clock::now();
    run_calls(state, args, work.get(), [](cpu::MatmulArgs&) {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cpu::allow_integer_gemm(true);
    benchmark::DoNotOptimize(y.data());
    state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["of_fma_peak"] = benchmark::Counter(flops * double(state.iterations()) / seconds / peak);
}

// k x n of TinyLlama's projections: attention/output, ffn gate/up, ffn down.
void tinyllama_shapes(benchmark::internal::Benchmark* b) {
    b->Args({2048, 2048})->Args({2048, 5632})->Args({5632, 2048})->ArgNames({"k", "n"});
}

// The same three of TinyLlama and of Llama-2-7B.
void prompt_shapes(benchmark::internal::Benchmark* b) {
    tinyllama_shapes(b);
    b->Args({4096, 4096})->Args({4096, 11008})->Args({11008, 4096});
}

const int registered = [] {
    // BM_Matvec/Q4_0: llama.cpp's 8-bit activations; BM_Matvec/Q4_0/q16: 16-bit (see ActivationPrecision).
    for (GgmlType id : {GgmlType::Q4_0, GgmlType::Q4_K, GgmlType::Q6_K, GgmlType::Q8_0, GgmlType::F16, GgmlType::BF16})
        for (ActivationPrecision act : {ActivationPrecision::Q8, ActivationPrecision::Q16}) {
            if (!find_quant_type(id) || !cpu::matmul_supports(id)) continue;
            const std::string name =
                std::string(ggml_type_traits(id).name) + (act == ActivationPrecision::Q16 ? "/q16" : "");
            benchmark::RegisterBenchmark(("BM_Matvec/" + name).c_str(), BM_Matvec, id, act)
                ->Apply(tinyllama_shapes)
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond)
                ->MinTime(0.3);
            benchmark::RegisterBenchmark(("BM_MatvecHot/" + name).c_str(), BM_MatvecHot, id, act)
                ->Args({2048, 256})
                ->Args({2048, 1024})
                ->Args({5632, 384})  // ffn down's rows: more activation bytes per row
                ->ArgNames({"k", "n"})
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond)
                ->MinTime(0.3);
            benchmark::RegisterBenchmark(("BM_Matmul/" + name).c_str(), BM_Matmul, id, act, true)
                ->Apply(prompt_shapes)
                ->UseRealTime()
                ->Unit(benchmark::kMillisecond)
                ->MinTime(0.3);
            // The F32 GEMM, where an integer path of this CPU takes the type.
            if (act == ActivationPrecision::Q16 && cpu::q16_matmul_rounds_activations(id, 2048, 512))
                benchmark::RegisterBenchmark(("BM_Matmul/" + name + "/f32_gemm").c_str(), BM_Matmul, id, act, false)
                    ->Apply(prompt_shapes)
                    ->UseRealTime()
                    ->Unit(benchmark::kMillisecond)
                    ->MinTime(0.3);
        }
    return 0;
}();

}  // namespace
}  // namespace tessera::bench
