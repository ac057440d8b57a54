// Issue 40: whether a level of token generation can load its weights while
// the level before it computes (bench/vulkan_overlap_chain.hpp):
//   BM_VulkanOverlapChain/<mode>/<shape>/levels:<N>/rows:<R>[/groups:<G>]
// runs N dependent F16 matvecs of a square shape, each level its own
// weights (together far larger than the GPU's L2), as one command buffer,
// submitted and waited on once per iteration. mode barriers: a dispatch a
// level, a pipeline barrier between levels; overlap: no barrier, each
// workgroup of R rows loads its weights, then spins on the level before's
// counter; persistent: one dispatch of G workgroups for every level, each
// loading its next rows' weights before it spins (G = 132, 264 and 512: one,
// two and four workgroups per SM of an H200, whose 132 SMs hold no more of
// these; a G the GPU cannot hold at once gives up waiting and fails). Counters: us/level (wall time over N) and
// weight_bytes/s. Before timing, the first runs of each mode are checked
// against the barriers' results (each level's output zeroed beforehand, the
// two inputs alternating) and the mode's error flag (a workgroup that gave up
// waiting), and after it the last run's: the benchmark fails on any
// difference. Skipped without a device.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/random_values.hpp"
#include "bench/vulkan_overlap_chain.hpp"
#include "graph/vulkan/vulkan_error.hpp"
#include "kernels/quant/half.hpp"

namespace tessera::bench {
namespace {

struct SquareShape {
    const char* name;
    int64_t dim;
};

// W with entries of variance 1 / dim, so that a vector keeps its size along the chain.
std::vector<uint16_t> random_matrix(int64_t dim, uint32_t seed) {
    const float scale = 1.0f / std::sqrt(float(dim));
    std::vector<uint16_t> w;
    w.reserve(size_t(dim * dim));
    for (float v : random_floats(size_t(dim * dim), seed)) w.push_back(fp32_to_fp16(v * scale));
    return w;
}

// Whether `got` equals `want` up to float rounding: both modes run the same
// arithmetic, a level that read its input too early is off by far more.
bool same_vector(const std::vector<float>& got, const std::vector<float>& want) {
    float size = 0, off = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        size = std::max(size, std::fabs(want[i]));
        off = std::max(off, std::fabs(got[i] - want[i]));
    }
    return off <= 1e-4f * size;  // also false for a NaN
}

// Why a run in `mode` is not what the barriers computed (`want`), or empty.
std::string wrong_run(MatvecChain& chain, ChainMode mode, const std::vector<float>& want) {
    // What a Persistent run needs and an Overlap run does not (lavapipe, for one, fails it).
    const std::string residency = mode == ChainMode::Persistent ? " (are all its workgroups resident at once?)" : "";
    if (chain.gave_up(mode)) return "a workgroup gave up waiting for the level before" + residency;
    if (!same_vector(chain.output(mode), want)) return "differs from the barriers' result" + residency;
    return {};
}

void BM_VulkanOverlapChain(benchmark::State& state, ChainMode mode, SquareShape shape) {
    const int64_t levels = state.range(0);
    const auto rows = uint32_t(state.range(1));
    const auto persistent_groups = uint32_t(mode == ChainMode::Persistent ? state.range(2) : 0);
    std::optional<MatvecChain> chain;
    try {
        chain.emplace(open_vulkan_device(), shape.dim, levels, rows, persistent_groups,
                      std::vector<std::vector<uint16_t>>{random_matrix(shape.dim, 5), random_matrix(shape.dim, 7)},
                      std::array<std::vector<float>, 2>{random_floats(size_t(shape.dim), 6),
                                                        random_floats(size_t(shape.dim), 8)});
    } catch (const VulkanUnavailable& e) {
        state.SkipWithError(e.what());
        return;
    }
    std::array<std::vector<float>, 2> want;
    for (int input = 0; input < 2; ++input) {
        chain->run(ChainMode::Barriers, input);
        want[size_t(input)] = chain->output(ChainMode::Barriers);
    }
    for (int run = 0; run < 4; ++run) {
        chain->run(mode, run % 2);
        if (const std::string wrong = wrong_run(*chain, mode, want[size_t(run % 2)]); !wrong.empty()) {
            state.SkipWithError(("run " + std::to_string(run) + ": " + wrong).c_str());
            return;
        }
    }

    double seconds = 0;
    int last = 0;
    for (auto _ : state) {
        last = 1 - last;
        const auto start = std::chrono::steady_clock::now();
        chain->run(mode, last);
        seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    if (const std::string wrong = wrong_run(*chain, mode, want[size_t(last)]); !wrong.empty())
        state.SkipWithError(("the last timed run: " + wrong).c_str());
    const double per_run = seconds / double(state.iterations());
    state.counters["us/level"] = per_run / double(levels) * 1e6;
    state.counters["weight_bytes/s"] = double(chain->weight_bytes_per_level()) * double(levels) / per_run;
    state.counters["workgroups/level"] = double(chain->workgroups_per_level());
}

void register_overlap_chains() {
    const std::vector<int64_t> levels{16, 64}, rows{4, 8}, persistent_groups{132, 264, 512};
    for (const SquareShape shape : {SquareShape{"tinyllama_attn_q", 2048}, SquareShape{"llama7b_attn_q", 4096}})
        for (const auto& [mode, name] : {std::pair{ChainMode::Barriers, "barriers"}, std::pair{ChainMode::Overlap, "overlap"},
                                         std::pair{ChainMode::Persistent, "persistent"}}) {
            benchmark::internal::Benchmark* b =
                benchmark::RegisterBenchmark((std::string("BM_VulkanOverlapChain/") + name + "/" + shape.name).c_str(),
                                             BM_VulkanOverlapChain, mode, shape)
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            if (mode == ChainMode::Persistent)
                b->ArgNames({"levels", "rows", "groups"})->ArgsProduct({levels, rows, persistent_groups});
            else
                b->ArgNames({"levels", "rows"})->ArgsProduct({levels, rows});
        }
}
const bool registered = (register_overlap_chains(), true);

}  // namespace
}  // namespace tessera::bench
