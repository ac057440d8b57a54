// Every op of the graph at the layer shapes of real models, as a graph of
// one op node (inputs filled once) run through the executor, on its CPU
// backend or on its Vulkan backend:
//   BM_Op[/vulkan]/<op>/<model>/tokens:<T>             rms_norm head_norm mul add rope swiglu geglu softcap
//                                                      softmax set_rows attention attention_window
//   BM_Op[/vulkan]/get_rows/<type>/<model>/tokens:<T>
//   BM_Op[/vulkan]/matmul/<type>/<matrix>/<model>/tokens:<T>   matrix: attn_q attn_k ffn_up ffn_down output
// model: tinyllama-1.1b, llama-2-7b, llama-3-8b; T: 1, 32, 128, 512. Attention
// and softmax look at a context of 512 positions (the T queries at its end).
// Counters from the op's declared cost (OpDef::cost): GFLOP/s, GB/s and, on
// the CPU, of_roofline (roofline.hpp). At T = 1 the matmul weights rotate
// through copies totalling >= 256 MiB, so that each run reads them from DRAM
// as token generation does. Matmuls use the default 16-bit activations (`/q8`:
// llama.cpp's 8-bit).
//
// CPU time is wall time. Vulkan time is the GPU's, from the timestamps the
// executor's profile records around the node (no submit or wait); a Vulkan
// benchmark whose node the backend cannot run, or without a device, is
// skipped, saying why.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>

#include "bench/random_values.hpp"
#include "bench/roofline.hpp"
#include "bench/stream_read.hpp"
#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph/vulkan/vulkan_error.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/quant/registry.hpp"
#include "models/synthetic_model.hpp"
#include "ops/ops.hpp"
#include "support/huge_pages.hpp"

namespace tessera::bench {
namespace {

using model::ModelShape;
constexpr int64_t kContext = 512;

// A graph of one op node, the storage it borrows (weights, caches) and the
// executor that runs it.
struct OpGraph {
    Graph graph;
    Tensor* out = nullptr;     // the op benchmarked
    Tensor* result = nullptr;  // what the executor computes: out, or a node reading it
    // A matmul's weight, which token generation reads from DRAM.
    Tensor* streamed_weight = nullptr;
    std::vector<std::vector<uint8_t>> buffers;
    std::unique_ptr<Executor> exec;

    void* own(size_t bytes) {
        buffers.emplace_back(bytes + 64);
        auto p = reinterpret_cast<uintptr_t>(buffers.back().data());
        return reinterpret_cast<void*>((p + 63) / 64 * 64);
    }
};

// rows x row_elems of `type`: 64 distinct random rows, repeated (quantizing
// billions of values would dominate the set-up).
uint8_t* weight_data(OpGraph& og, GgmlType type, int64_t row_elems, int64_t rows) {
    const QuantTypeEntry& e = *find_quant_type(type);
    const size_t row_bytes = e.row_bytes(row_elems);
    auto* data = static_cast<uint8_t*>(og.own(row_bytes * size_t(rows)));
    const int64_t distinct = std::min<int64_t>(rows, 64);
    const std::vector<float> values = random_floats(size_t(distinct * row_elems), 1);
    e.quantize(values.data(), data, distinct * row_elems);
    for (int64_t r = distinct; r < rows; ++r) std::memcpy(data + size_t(r) * row_bytes, data + size_t(r % distinct) * row_bytes, row_bytes);
    return data;
}

Tensor* positions(Graph& g, int64_t t) { return g.input("positions", GgmlType::I32, {t, 1, 1, 1}); }

using Build = std::function<void(OpGraph&, const ModelShape&, int64_t)>;

std::unique_ptr<OpGraph> build_op(const ModelShape& shape, const Build& build, int64_t T) {
    auto og = std::make_unique<OpGraph>();
    build(*og, shape, T);
    return og;
}

// How many copies of the graph's streamed weight the runs cycle through: at
// T = 1 enough to total >= 256 MiB, so that each run reads it from DRAM.
size_t weight_copies(const OpGraph& og, int64_t T) {
    if (T != 1 || og.streamed_weight == nullptr) return 1;
    return (size_t(256) << 20) / og.streamed_weight->nbytes() + 1;
}

// The leaves of type Input that `t` depends on.
void collect_inputs(Tensor* t, std::vector<Tensor*>& out) {
    if (t->leaf == LeafKind::Input && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    for (Tensor* s : t->src) collect_inputs(s, out);
}

// Plans the graph and fills its inputs: F32 values, I32 token ids and
// positions (the T queries end the context).
void plan(OpGraph& og, const ModelShape& shape, int64_t T, ExecutorOptions options) {
    og.exec = std::make_unique<Executor>(og.graph, std::vector<Tensor*>{og.result ? og.result : og.out},
                                         std::move(options));
    std::vector<Tensor*> inputs;
    collect_inputs(og.out, inputs);
    for (Tensor* t : inputs) {
        if (t->type == GgmlType::F32) {
            const auto v = random_floats(size_t(t->nelements()), 3);
            std::memcpy(t->data, v.data(), v.size() * 4);
        } else {
            auto* ids = static_cast<int32_t*>(t->data);
            for (int64_t i = 0; i < t->nelements(); ++i)
                ids[i] = t->name == "positions" ? int32_t(kContext - T + i) : int32_t((i * 7919) % shape.n_vocab);
        }
    }
}

// Counters from the op's declared cost, over `seconds` for all the runs; returns the cost.
OpCost set_counters(benchmark::State& state, const Tensor& op, double seconds) {
    const OpCost cost = op.op->cost(op);
    const double runs = double(state.iterations());
    state.counters["flops"] = cost.flops;
    state.counters["bytes"] = cost.bytes;
    state.counters["GFLOP/s"] = cost.flops * runs / seconds / 1e9;
    state.counters["GB/s"] = cost.bytes * runs / seconds / 1e9;
    return cost;
}

void run_op_cpu(benchmark::State& state, const ModelShape& shape, const Build& build) {
    const int64_t T = state.range(0);
    const std::unique_ptr<OpGraph> og = build_op(shape, build, T);
    plan(*og, shape, T, {.backends = {std::make_shared<CpuBackend>(bench_threads())}});
    // The runs move the streamed weight's data through its copies, one after
    // another on huge pages, as tessera holds a model's weights for the CPU
    // (support/huge_pages.hpp).
    std::vector<void*> copies;
    HugePageBuffer copy_memory;
    void* const own_data = og->streamed_weight ? og->streamed_weight->data : nullptr;
    if (Tensor* w = og->streamed_weight; w != nullptr)
        if (const size_t n = weight_copies(*og, T); n > 1) {
            const size_t stride = (w->nbytes() + 63) / 64 * 64;
            copy_memory = allocate_huge_pages(stride * n);
            for (size_t c = 0; c < n; ++c)
                copies.push_back(std::memcpy(copy_memory.get() + c * stride, w->data, w->nbytes()));
        }
    size_t copy = 0;
    const auto start = std::chrono::steady_clock::now();
    for (auto _ : state) {
        if (copies.size() > 1) {
            og->streamed_weight->data = copies[copy];
            copy = copy + 1 == copies.size() ? 0 : copy + 1;
        }
        og->exec->run();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (own_data != nullptr) og->streamed_weight->data = own_data;  // copy_memory goes first
    const OpCost cost = set_counters(state, *og->out, seconds);
    state.counters["of_roofline"] = roofline_seconds(cost.flops, cost.bytes) * double(state.iterations()) / seconds;
}

// The Vulkan device, opened by the first Vulkan benchmark and kept open for
// the others, or why it could not be opened.
struct VulkanDeviceOrReason {
    std::shared_ptr<VulkanDevice> device;
    std::string unavailable;
};

const VulkanDeviceOrReason& vulkan_device() {
    static const VulkanDeviceOrReason opened = []() -> VulkanDeviceOrReason {
        try {
            return {.device = open_vulkan_device()};
        } catch (const VulkanUnavailable& e) {
            return {.unavailable = e.what()};
        }
    }();
    return opened;
}

// GPU seconds of all of an executor's runs so far, of the node `name`.
double profiled_seconds(const Executor& exec, const std::string& name) {
    double seconds = 0;
    for (const Profile::Entry& e : exec.profile().entries())
        if (e.name == name) seconds += e.seconds;
    return seconds;
}

// On a device, graph inputs and outputs live in host-visible memory, which
// a GPU reads and writes over the bus; in a model the op's operands are
// device-local intermediates. So the op reads F32 inputs through a copy
// made on the device (scale by 1) and its output is read by another one.
void operands_on_device(OpGraph& og) {
    for (Tensor*& s : og.out->src)
        if (s->leaf == LeafKind::Input && s->type == GgmlType::F32) s = scale(s, 1.0f);
    og.result = scale(og.out, 1.0f);
}

void run_op_vulkan(benchmark::State& state, const ModelShape& shape, const Build& build) {
    const int64_t T = state.range(0);
    const VulkanDeviceOrReason& device = vulkan_device();
    if (!device.device) {
        state.SkipWithError(("no Vulkan device: " + device.unavailable).c_str());
        return;
    }
    if (!device.device->timestamps()) {
        state.SkipWithError("the Vulkan device has no timestamp queries on its compute queue");
        return;
    }
    // A backend of its own (on the open device): it keeps its device copies
    // of weights, keyed by host address, until it is destroyed.
    auto vulkan = std::make_shared<VulkanBackend>();
    std::vector<std::unique_ptr<OpGraph>> graphs;
    graphs.push_back(build_op(shape, build, T));
    const Tensor& op = *graphs[0]->out;
    if (!vulkan->supports(op)) {
        state.SkipWithError(("the Vulkan backend has no kernel for " + std::string(op.op->name) + " of " +
                             describe(*op.src[0]))
                                .c_str());
        return;
    }
    // A recorded command buffer reads the device copy of the weight it was
    // recorded with: the weight copies are graphs of their own, run in turn.
    while (graphs.size() < weight_copies(*graphs[0], T)) graphs.push_back(build_op(shape, build, T));
    std::vector<double> seconds_before(graphs.size());  // each executor's profiled seconds
    for (size_t i = 0; i < graphs.size(); ++i) {
        operands_on_device(*graphs[i]);
        plan(*graphs[i], shape, T, {.backends = {vulkan}, .profile = true});
        graphs[i]->exec->run();  // records the command buffer, uploads the weights
        seconds_before[i] = profiled_seconds(*graphs[i]->exec, graphs[i]->out->name);
    }
    double seconds = 0;
    size_t next = 0;
    for (auto _ : state) {
        Executor& exec = *graphs[next]->exec;
        exec.run();
        const double run_seconds = profiled_seconds(exec, graphs[next]->out->name) - seconds_before[next];
        seconds_before[next] += run_seconds;
        seconds += run_seconds;
        state.SetIterationTime(run_seconds);
        next = next + 1 == graphs.size() ? 0 : next + 1;
    }
    set_counters(state, op, seconds);
}

// The layer matrices of a shape: name, k (row length), n (rows).
struct Matrix {
    const char* name;
    int64_t k, n;
};
std::vector<Matrix> matrices(const ModelShape& s) {
    const int64_t kv = s.n_head_kv * s.head_dim();
    return {{"attn_q", s.n_embd, s.n_embd},
            {"attn_k", s.n_embd, kv},
            {"ffn_up", s.n_embd, s.n_ff},
            {"ffn_down", s.n_ff, s.n_embd},
            {"output", s.n_embd, s.n_vocab}};
}

void tokens_and_time(benchmark::internal::Benchmark* b) {
    b->ArgName("tokens")->Arg(1)->Arg(32)->Arg(128)->Arg(512)->Unit(benchmark::kMicrosecond)->MinTime(0.2);
}

// BM_Op/<name>/<model> on the CPU, BM_Op/vulkan/<name>/<model> on Vulkan.
void register_op(const std::string& name, const ModelShape& shape, Build build) {
    const std::string rest = name + "/" + shape.name;
    benchmark::RegisterBenchmark(("BM_Op/" + rest).c_str(),
                                 [shape, build](benchmark::State& st) { run_op_cpu(st, shape, build); })
        ->Apply(tokens_and_time)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Op/vulkan/" + rest).c_str(),
                                 [shape, build](benchmark::State& st) { run_op_vulkan(st, shape, build); })
        ->Apply(tokens_and_time)
        ->UseManualTime();
}

const int registered = [] {
    for (const std::string& model_name : model::preset_shape_names()) {
        const ModelShape s = *model::preset_shape(model_name);
        const int64_t hd = s.head_dim();
        const float eps = s.rms_eps;
        register_op("rms_norm", s, [eps](OpGraph& og, const ModelShape& s, int64_t t) {
            og.out = rms_norm(og.graph.input("x", GgmlType::F32, {s.n_embd, t, 1, 1}), eps);
        });
        register_op("mul", s, [](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            og.out = mul(g.input("x", GgmlType::F32, {s.n_embd, t, 1, 1}), g.input("w", GgmlType::F32, {s.n_embd, 1, 1, 1}));
        });
        register_op("add", s, [](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            og.out = add(g.input("a", GgmlType::F32, {s.n_embd, t, 1, 1}), g.input("b", GgmlType::F32, {s.n_embd, t, 1, 1}));
        });
        register_op("rope", s, [hd](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            og.out = rope(g.input("q", GgmlType::F32, {hd, s.n_head, t, 1}), positions(g, t),
                          RopeParams{.n_rot = int(hd), .freq_base = s.rope_base, .freq_scale = 1.0f, .mode = cpu::RopeMode::Normal});
        });
        register_op("swiglu", s, [](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            og.out = swiglu(g.input("gate", GgmlType::F32, {s.n_ff, t, 1, 1}), g.input("up", GgmlType::F32, {s.n_ff, t, 1, 1}));
        });
        register_op("geglu", s, [](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            og.out = geglu(g.input("gate", GgmlType::F32, {s.n_ff, t, 1, 1}), g.input("up", GgmlType::F32, {s.n_ff, t, 1, 1}));
        });
        register_op("softcap", s, [](OpGraph& og, const ModelShape& s, int64_t t) {  // Gemma 2's logits
            og.out = softcap(og.graph.input("logits", GgmlType::F32, {s.n_vocab, t, 1, 1}), 30.0f);
        });
        register_op("head_norm", s, [hd, eps](OpGraph& og, const ModelShape& s, int64_t t) {  // Qwen3's, Gemma 3's q norm
            Graph& g = og.graph;
            og.out = rms_norm(g.input("q", GgmlType::F32, {hd, s.n_head, t, 1}), eps,
                              g.weight("gain", GgmlType::F32, {hd, 1, 1, 1}, weight_data(og, GgmlType::F32, hd, 1)));
        });
        register_op("softmax", s, [hd](OpGraph& og, const ModelShape& s, int64_t t) {
            // Attention scores of one head: T queries over the context, causal.
            Graph& g = og.graph;
            og.out = softmax(g.input("scores", GgmlType::F32, {kContext, t, 1, 1}), 1.0f / std::sqrt(float(hd)),
                             positions(g, t));
        });
        register_op("set_rows", s, [hd](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            void* cache = og.own(size_t(2 * hd * kContext * s.n_head_kv));
            Tensor* dst = g.external("k_cache", GgmlType::F16, {hd, kContext, s.n_head_kv, 1}, cache);
            og.out = set_rows(dst, g.input("k", GgmlType::F32, {hd, t, s.n_head_kv, 1}), positions(g, t));
        });
        register_op("attention", s, [hd](OpGraph& og, const ModelShape& s, int64_t t) {
            Graph& g = og.graph;
            const Shape kv{hd, kContext, s.n_head_kv, 1};
            Tensor* k = g.weight("k", GgmlType::F16, kv, weight_data(og, GgmlType::F16, hd, kContext * s.n_head_kv));
            Tensor* v = g.weight("v", GgmlType::F16, kv, weight_data(og, GgmlType::F16, hd, kContext * s.n_head_kv));
            og.out = attention(g.input("q", GgmlType::F32, {hd, s.n_head, t, 1}), k, v, positions(g, t),
                               1.0f / std::sqrt(float(hd)));
        });
        // A sliding-window layer's attention (Gemma 3's local layers): a
        // window of 1024 over a ring of 1024 + 512 rows, at positions that
        // have wrapped around the ring several times.
        register_op("attention_window", s, [hd](OpGraph& og, const ModelShape& s, int64_t t) {
            constexpr int64_t kWindow = 1024, kRows = 1536, kLast = 8191;
            Graph& g = og.graph;
            const Shape kv{hd, kRows, s.n_head_kv, 1};
            Tensor* k = g.weight("k", GgmlType::F16, kv, weight_data(og, GgmlType::F16, hd, kRows * s.n_head_kv));
            Tensor* v = g.weight("v", GgmlType::F16, kv, weight_data(og, GgmlType::F16, hd, kRows * s.n_head_kv));
            auto* pos = reinterpret_cast<int32_t*>(og.own(size_t(t) * sizeof(int32_t)));
            for (int64_t i = 0; i < t; ++i) pos[i] = int32_t(kLast - t + 1 + i);
            og.out = attention(g.input("q", GgmlType::F32, {hd, s.n_head, t, 1}), k, v,
                               g.weight("ring_positions", GgmlType::I32, {t, 1, 1, 1}, pos),
                               {.scale = 1.0f / std::sqrt(float(hd)), .window = kWindow});
        });
        for (const QuantTypeEntry& e : enabled_quant_types()) {
            const GgmlType type = e.traits.id;
            if (!cpu::matmul_supports(type)) continue;
            const std::string tname(e.traits.name);
            register_op("get_rows/" + tname, s, [type](OpGraph& og, const ModelShape& s, int64_t t) {
                Graph& g = og.graph;
                Tensor* table = g.weight("token_embd", type, {s.n_embd, s.n_vocab, 1, 1},
                                         weight_data(og, type, s.n_embd, s.n_vocab));
                og.out = get_rows(table, g.input("ids", GgmlType::I32, {t, 1, 1, 1}));
            });
            for (const Matrix& m : matrices(s))
                for (const ActivationPrecision act : {ActivationPrecision::Q16, ActivationPrecision::Q8}) {
                    const std::string suffix = act == ActivationPrecision::Q8 ? "/q8" : "";
                    register_op("matmul/" + tname + suffix + "/" + m.name, s,
                                [type, m, act](OpGraph& og, const ModelShape&, int64_t t) {
                                    Tensor* w = og.graph.weight(m.name, type, {m.k, m.n, 1, 1}, weight_data(og, type, m.k, m.n));
                                    og.streamed_weight = w;
                                    og.out = matmul(w, og.graph.input("x", GgmlType::F32, {m.k, t, 1, 1}), act);
                                });
                }
        }
    }
    return 0;
}();

}  // namespace
}  // namespace tessera::bench
