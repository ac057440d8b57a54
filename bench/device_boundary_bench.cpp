// What a model split by layer between two devices pays per pass where the
// layer ranges meet (graph/executor.hpp: a transfer into host memory, one
// into the second device, and a second submission):
//   BM_DeviceBoundary/width:<W>/split:<S>
// runs a chain of 8 adds of a W-value vector (W: the hidden size, 8192 for
// Llama-2-70B: one token's crossing) on Vulkan device 0, or with split:1 the
// last 4 on a second backend: device 1, or device 0 again where it is the
// only one. us/run of split:1 less that of split:0 is the crossing's cost
// (transfers: the transfer nodes, 2 with the split).
// Skipped without a device.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "bench/executor_timing.hpp"
#include "bench/random_values.hpp"
#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/transfer.hpp"
#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "ops/ops.hpp"

namespace tessera::bench {
namespace {

constexpr int kLevels = 8;

void BM_DeviceBoundary(benchmark::State& state) {
    const int64_t width = state.range(0);
    const bool split = state.range(1) != 0;
    std::vector<std::shared_ptr<Backend>> backends;
    try {
        backends.push_back(std::make_shared<VulkanBackend>(0));
        if (split) backends.push_back(std::make_shared<VulkanBackend>(list_vulkan_devices().size() > 1 ? 1 : 0));
    } catch (const BackendError& e) {
        state.SkipWithError(("no Vulkan device: " + std::string(e.what())).c_str());
        return;
    }
    backends.push_back(std::make_shared<CpuBackend>(1));
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {width, 1, 1, 1});
    Tensor* y = x;
    for (int l = 0; l < kLevels; ++l) y = g.name(add(y, x), "level" + std::to_string(l));
    const int first_half_end = y->id - kLevels / 2;  // ids of the last kLevels / 2 adds are above it
    ExecutorOptions options{.backends = backends};
    if (split) options.place = [=](const Tensor& t) { return t.id > first_half_end ? 1 : 0; };
    Executor exec(g, {y}, options);
    const auto v = random_floats(size_t(width), 3);
    std::copy(v.begin(), v.end(), static_cast<float*>(x->data));
    state.counters["us/run"] = seconds_per_run(state, exec) * 1e6;
    state.counters["transfers"] = double(std::count_if(exec.schedule().begin(), exec.schedule().end(),
                                                       [](const Tensor* t) { return t->op == &ops::kTransfer; }));
}
BENCHMARK(BM_DeviceBoundary)
    ->ArgNames({"width", "split"})
    ->ArgsProduct({{4096, 8192}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace tessera::bench
