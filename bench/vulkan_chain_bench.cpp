// What a dependent dispatch costs on a Vulkan device apart from its work,
// the figure that bounds token generation of small models:
//   BM_VulkanChain/levels:<N>/width:<W>
// runs W independent chains of N adds of a 1024-value vector (each add
// reads the one before it, so a barrier separates the levels), recorded as
// one command buffer, submitted and waited on once per run. Counters:
// us/level (wall time over N: levels:1 is about the cost of a submit and a
// wait) and dispatches and barriers per run.
//   BM_VulkanMatvecChain/<type>/<shape>/<q8|q16>/levels:<N>/distinct:<D>
// does the same with N matrix x vector products (activations rounded as
// named: q16 is what token generation runs), each reading the product
// before it, of D distinct weights in turn: D = N (together larger than the
// GPU's L2) reads each from DRAM, D = 2 from L2 after the first run:
// shape tinyllama_attn_q (2048 x 2048), whose us/level less BM_VulkanChain's
// is the latency of one such matvec in token generation, or llama7b_ffn
// (ffn_up and ffn_down in turn), whose weight_bytes/s is the matvec's
// bandwidth. Skipped without a device.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/executor_timing.hpp"
#include "bench/random_values.hpp"
#include "graph/executor.hpp"
#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_error.hpp"
#include "kernels/quant/activation_precision.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/ops.hpp"

namespace tessera::bench {
namespace {

std::shared_ptr<VulkanBackend> open_backend(benchmark::State& state) {
    try {
        return std::make_shared<VulkanBackend>();
    } catch (const BackendError& e) {
        state.SkipWithError(("no Vulkan device: " + std::string(e.what())).c_str());
        return nullptr;
    }
}

// Runs right after the host spent seconds preparing a benchmark's weights
// (the K-quants) read up to 3 times slower on an H200 (its clocks lowered
// while idle, presumably), so each benchmark first runs untimed this long.
constexpr std::chrono::milliseconds kWarmUp{500};

// Runs `exec` for kWarmUp (recording it), then once per iteration; sets the counters.
void time_runs(benchmark::State& state, Executor& exec, const VulkanBackend& vulkan, int64_t levels) {
    for (const auto until = std::chrono::steady_clock::now() + kWarmUp; std::chrono::steady_clock::now() < until;)
        exec.run();
    const double seconds = seconds_per_run(state, exec);
    const RecordStats stats = vulkan.last_record_stats();
    state.counters["us/level"] = seconds / double(levels) * 1e6;
    state.counters["dispatches"] = double(stats.dispatches);
    state.counters["barriers"] = double(stats.barriers);
}

void BM_VulkanChain(benchmark::State& state) {
    const int64_t levels = state.range(0), width = state.range(1);
    const std::shared_ptr<VulkanBackend> vulkan = open_backend(state);
    if (!vulkan) return;
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {1024, 1, 1, 1});
    std::vector<Tensor*> ends;
    for (int64_t w = 0; w < width; ++w) {
        Tensor* t = scale(x, 1.0f);
        for (int64_t l = 1; l < levels; ++l) t = add(t, x);
        ends.push_back(t);
    }
    Executor exec(g, ends, {.backends = {vulkan}});
    std::fill_n(static_cast<float*>(x->data), 1024, 1.0f);
    time_runs(state, exec, *vulkan, levels);
}
BENCHMARK(BM_VulkanChain)
    ->ArgNames({"levels", "width"})
    ->ArgsProduct({{1, 64, 256}, {1, 4}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// A chain's matrices: TinyLlama's attn_q (2048 x 2048), or Llama-2-7B's
// ffn_up and ffn_down in turn (4096 -> 11008 -> 4096).
struct ChainShape {
    const char* name;
    int64_t dim, other;  // other == dim: square
};

void BM_VulkanMatvecChain(benchmark::State& state, GgmlType type, ChainShape shape, ActivationPrecision precision) {
    const int64_t levels = state.range(0), distinct = state.range(1);
    const std::shared_ptr<VulkanBackend> vulkan = open_backend(state);
    if (!vulkan) return;
    const QuantTypeEntry* entry = find_quant_type(type);
    if (entry == nullptr) {
        state.SkipWithError("this build left the type out");
        return;
    }
    // Level l maps `from` values to `to` values, from a weight [from, to].
    auto from = [&](int64_t l) { return l % 2 == 0 ? shape.dim : shape.other; };
    auto to = [&](int64_t l) { return from(l + 1); };
    const size_t bytes = row_bytes(ggml_type_traits(type), uint64_t(shape.dim)) * size_t(shape.other);  // either way
    std::vector<uint8_t> weights(bytes * size_t(distinct)), pair(2 * bytes);
    entry->quantize(random_floats(size_t(shape.dim * shape.other), 5).data(), pair.data(), shape.dim * shape.other);
    entry->quantize(random_floats(size_t(shape.dim * shape.other), 7).data(), pair.data() + bytes,
                    shape.dim * shape.other);
    for (int64_t d = 0; d < distinct; ++d) std::memcpy(weights.data() + bytes * d, pair.data() + bytes * (d % 2), bytes);
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {shape.dim, 1, 1, 1});
    std::vector<Tensor*> w;  // level l reads w[l % distinct]
    for (int64_t d = 0; d < distinct; ++d)
        w.push_back(g.weight("w" + std::to_string(d), type, {from(d), to(d), 1, 1}, weights.data() + bytes * d));
    Tensor* y = x;
    for (int64_t l = 0; l < levels; ++l) y = matmul(w[size_t(l % distinct)], y, precision);
    Executor exec(g, {y}, {.backends = {vulkan}});
    const auto v = random_floats(size_t(shape.dim), 6);
    std::memcpy(x->data, v.data(), v.size() * 4);
    time_runs(state, exec, *vulkan, levels);
    state.counters["weight_bytes/s"] = benchmark::Counter(double(bytes) * double(levels) * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void register_matvec_chains() {
    for (const ChainShape shape : {ChainShape{"tinyllama_attn_q", 2048, 2048}, ChainShape{"llama7b_ffn", 4096, 11008}})
        for (const char* type : {"F16", "Q8_0", "Q4_0", "Q4_K", "Q5_K", "Q6_K"})
            for (const ActivationPrecision precision : {ActivationPrecision::Q8, ActivationPrecision::Q16}) {
                const int64_t levels = shape.dim == shape.other ? 48 : 16;
                const std::string label = std::string("BM_VulkanMatvecChain/") + type + "/" + shape.name + "/" +
                                          std::string(name(precision));
                benchmark::RegisterBenchmark(label.c_str(), BM_VulkanMatvecChain, ggml_type_by_name(type)->id, shape,
                                             precision)
                    ->ArgNames({"levels", "distinct"})
                    ->Args({levels, levels})
                    ->Args({levels, 2})
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
}
const bool registered = (register_matvec_chains(), true);

}  // namespace
}  // namespace tessera::bench
