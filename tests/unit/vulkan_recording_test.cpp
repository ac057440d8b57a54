// How the Vulkan backend records a segment: barriers only between levels of
// dependent nodes, never between independent ones; and what it reports of
// the pipelines it created.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph_test_util.hpp"
#include "kernels/quant/half.hpp"
#include "kernels/quant/registry.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

// A command buffer of a pool of its own, begun, for a test to record into.
class TestCommands {
public:
    explicit TestCommands(VulkanDevice& device) : device_(device) {
        VkCommandPoolCreateInfo pool_info{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                          .queueFamilyIndex = device.queue_family()};
        EXPECT_EQ(vk::vkCreateCommandPool(device.device(), &pool_info, nullptr, &pool_), VK_SUCCESS);
        VkCommandBufferAllocateInfo alloc{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = pool_,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        EXPECT_EQ(vk::vkAllocateCommandBuffers(device.device(), &alloc, &cb_), VK_SUCCESS);
        VkCommandBufferBeginInfo begin{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        EXPECT_EQ(vk::vkBeginCommandBuffer(cb_, &begin), VK_SUCCESS);
    }
    ~TestCommands() { vk::vkDestroyCommandPool(device_.device(), pool_, nullptr); }
    TestCommands(const TestCommands&) = delete;
    TestCommands& operator=(const TestCommands&) = delete;

    VkCommandBuffer cb() const { return cb_; }
    // Ends the command buffer and, with `run`, submits it and waits until it is done.
    void end(bool run) {
        ASSERT_EQ(vk::vkEndCommandBuffer(cb_), VK_SUCCESS);
        if (!run) return;
        VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb_};
        std::lock_guard lock(device_.queue_mutex());
        ASSERT_EQ(vk::vkQueueSubmit(device_.queue(), 1, &submit, VK_NULL_HANDLE), VK_SUCCESS);
        ASSERT_EQ(vk::vkQueueWaitIdle(device_.queue()), VK_SUCCESS);
    }

private:
    VulkanDevice& device_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cb_ = VK_NULL_HANDLE;
};

// Two chains that share their first node, as q and k share the normed x:
// h = rms_norm(x); a = silu(silu(h)); b = silu(scale(h)). Three levels, so
// two barriers, however the chains interleave; a depth-first schedule (h, one
// chain, then the other) needed a barrier per node.
TEST(VulkanRecording, BarriersOnlyBetweenLevels) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {64, 1, 1, 1});
    Tensor* h = rms_norm(x, 1e-5f);
    Tensor* a = silu(silu(h));
    Tensor* b = silu(scale(h, 2.0f));
    Executor ex(g, {a, b}, {.backends = {vulkan}});
    std::vector<float> xs(64);
    for (size_t i = 0; i < xs.size(); ++i) xs[i] = float(i) / 7.0f - 4.0f;
    std::copy(xs.begin(), xs.end(), static_cast<float*>(x->data));
    ex.run();

    const RecordStats& stats = vulkan->last_record_stats();
    EXPECT_EQ(stats.dispatches, 5u);
    EXPECT_EQ(stats.barriers, 2u);

    double ms = 0;
    for (float v : xs) ms += double(v) * v;
    const double inv_rms = 1.0 / std::sqrt(ms / 64 + 1e-5);
    auto silu_d = [](double v) { return v / (1 + std::exp(-v)); };
    for (size_t i = 0; i < xs.size(); ++i) {
        const double hv = xs[i] * inv_rms;
        EXPECT_NEAR(static_cast<const float*>(a->data)[i], silu_d(silu_d(hv)), 1e-5) << i;
        EXPECT_NEAR(static_cast<const float*>(b->data)[i], silu_d(2 * hv), 1e-5) << i;
    }
}

// One token through a decoder layer as models/decoder_graph.cpp builds it
// (Q4_0 weights, an F16 cache holding 5 earlier tokens). Unfused it is 15
// dispatches in 10 levels; the Vulkan backend computes the norms, the
// ropes, the cache stores and swiglu inside the matvecs that read them:
// q, k, v | attention | output + residual | gate, up | down + residual.
// With 16-bit activations the matvecs compute in F32, as the reference; with
// 8-bit ones they round x to bytes (integer dot products where the device
// has them).
TEST(VulkanRecording, DecoderLayerForOneTokenIsFiveLevels) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t kDim = 64, kHd = 16, kHeads = 4, kKvHeads = 2, kFfn = 96, kCtx = 8, kPos = 5;
    std::vector<std::vector<uint8_t>> weights;
    std::vector<uint16_t> k_cache, v_cache;
    for (float x : test::random_floats(size_t(kHd * kCtx * kKvHeads), 3)) k_cache.push_back(fp32_to_fp16(x));
    for (float x : test::random_floats(size_t(kHd * kCtx * kKvHeads), 4)) v_cache.push_back(fp32_to_fp16(x));
    const std::vector<int32_t> position{int32_t(kPos)};
    const std::vector<float> x_in = test::random_floats(size_t(kDim), 5);

    // Every run's caches stay alive: the backend keeps a device copy of an
    // external buffer by its address.
    std::deque<std::vector<uint16_t>> caches;
    auto run = [&](std::shared_ptr<Backend> backend, bool fuse, ActivationPrecision precision, RecordStats* stats) {
        std::vector<uint16_t>& kc = caches.emplace_back(k_cache);
        std::vector<uint16_t>& vc = caches.emplace_back(v_cache);
        Graph g;
        uint32_t seed = 10;
        auto w = [&](int64_t k, int64_t n) {
            weights.push_back(test::random_weights(GgmlType::Q4_0, k, n, seed, 0.2f));
            return g.weight("w" + std::to_string(seed++), GgmlType::Q4_0, {k, n, 1, 1}, weights.back().data());
        };
        auto gain = [&] { return g.input("g" + std::to_string(seed++), GgmlType::F32, {kDim, 1, 1, 1}); };
        Tensor* x = g.input("x", GgmlType::F32, {kDim, 1, 1, 1});
        Tensor* pos = g.input("pos", GgmlType::I32, {1, 1, 1, 1});
        Tensor *g1 = gain(), *g2 = gain();
        const RopeParams rp{.n_rot = int(kHd), .freq_base = 10000, .freq_scale = 1, .mode = RopeMode::Normal};
        Tensor* h = rms_norm(x, 1e-5f, g1);
        Tensor* q = rope(reshape(matmul(w(kDim, kDim), h, precision), {kHd, kHeads, 1, 1}), pos, rp);
        Tensor* k = rope(reshape(matmul(w(kDim, kHd * kKvHeads), h, precision), {kHd, kKvHeads, 1, 1}), pos, rp);
        Tensor* v = reshape(matmul(w(kDim, kHd * kKvHeads), h, precision), {kHd, kKvHeads, 1, 1});
        const Shape cache{kHd, kCtx, kKvHeads, 1}, used{kHd, kPos + 1, kKvHeads, 1};
        Tensor* ks = set_rows(g.external("kc", GgmlType::F16, cache, kc.data()), permute(k, {0, 2, 1, 3}), pos);
        Tensor* vs = set_rows(g.external("vc", GgmlType::F16, cache, vc.data()), permute(v, {0, 2, 1, 3}), pos);
        Tensor* att = attention(q, view(ks, used, ks->nb), view(vs, used, vs->nb), pos, 0.25f);
        x = matmul(w(kDim, kDim), reshape(att, {kDim, 1, 1, 1}), precision, x);
        h = rms_norm(x, 1e-5f, g2);
        Tensor* ff = swiglu(matmul(w(kDim, kFfn), h, precision), matmul(w(kDim, kFfn), h, precision));
        Tensor* out = matmul(w(kFfn, kDim), ff, precision, x);
        Executor ex(g, {out}, {.backends = {backend}, .fuse = fuse});
        test::fill(g.find("x"), x_in);
        test::fill(pos, position);
        test::fill(g1, test::random_floats(size_t(kDim), 6, 1.0f));
        test::fill(g2, test::random_floats(size_t(kDim), 7, 1.0f));
        ex.run();
        if (stats) *stats = vulkan->last_record_stats();
        return test::values_of(*out);
    };
    for (const ActivationPrecision precision : {ActivationPrecision::Q16, ActivationPrecision::Q8}) {
        // The reference does not round x whatever the precision. With 8-bit x
        // the layer may be off by what llama.cpp's arithmetic (the CPU
        // backend's) is off, and a quarter more: x in blocks of 32 as there,
        // other rounding.
        const std::vector<float> expected = run(std::make_shared<ReferenceBackend>(), false, precision, nullptr);
        const double tolerance =
            precision == ActivationPrecision::Q16
                ? 1e-7
                : 1.25 * test::nmse(expected, run(std::make_shared<CpuBackend>(), true, precision, nullptr));
        RecordStats fused, unfused;
        const std::vector<float> got = run(vulkan, true, precision, &fused);
        const std::vector<float> got_unfused = run(vulkan, false, precision, &unfused);
        EXPECT_EQ(unfused.dispatches, 15u);
        EXPECT_EQ(unfused.barriers, 9u);
        EXPECT_EQ(fused.dispatches, 8u);
        EXPECT_EQ(fused.barriers, 4u);
        EXPECT_LE(test::nmse(expected, got), tolerance);
        EXPECT_LE(test::nmse(expected, got_unfused), tolerance);
        if (precision == ActivationPrecision::Q8 && vulkan->device().info().int_dot) {
            // Rounded: no longer the F32 result.
            EXPECT_GT(test::nmse(expected, got), 1e-9);
        }
    }
}

// Two device buffers of 1024 bytes, bound whole, for a recording to derive
// copies from; released with the test.
class TwoBuffers {
public:
    explicit TwoBuffers(VulkanDevice& device)
        : device_(device),
          a_(device.memory().allocate(1024, MemoryKind::Device)),
          b_(device.memory().allocate(1024, MemoryKind::Device)) {}
    ~TwoBuffers() {
        device_.memory().release(a_);
        device_.memory().release(b_);
    }
    TwoBuffers(const TwoBuffers&) = delete;
    TwoBuffers& operator=(const TwoBuffers&) = delete;

    BoundTensor first() const { return {.buffer = a_.buffer, .offset = a_.offset, .range = 1024}; }
    BoundTensor second() const { return {.buffer = b_.buffer, .offset = b_.offset, .range = 1024}; }

private:
    VulkanDevice& device_;
    DeviceAllocation a_, b_;
};

// The scratch memory of derived copies (the tensor-core matmul's fp16 copy
// of x, shared by the q, k and v projections): a request for the copy of the
// same range in the same form and size reuses it, until a command writes that range or
// another copy takes the scratch over; a larger request gets a new region
// (the old one stays with the segment, as earlier commands use it).
TEST(VulkanRecording, DerivedCopyIsReusedUntilItsSourceIsWritten) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    VulkanDevice& device = vulkan->device();
    TestCommands commands(device);
    const TwoBuffers buffers(device);
    const BoundTensor src = buffers.first(), other = buffers.second();
    std::vector<DeviceAllocation> owned;
    {
        Recorder rec(*vulkan, commands.cb(), owned);
        bool fresh = false;
        const BoundTensor first = rec.derived_copy(src, 1, 512, fresh);
        EXPECT_TRUE(fresh);
        EXPECT_EQ(first.range, 512u);
        const BoundTensor again = rec.derived_copy(src, 1, 512, fresh);
        EXPECT_FALSE(fresh);
        EXPECT_EQ(again.buffer, first.buffer);
        EXPECT_EQ(again.offset, first.offset);
        rec.derived_copy(src, 1, 256, fresh);  // another copy of the same range
        EXPECT_TRUE(fresh);
        rec.derived_copy(src, 2, 256, fresh);  // the same size in another form
        EXPECT_TRUE(fresh);
        rec.derived_copy(src, 1, 256, fresh);
        EXPECT_TRUE(fresh);
        rec.derived_copy(other, 1, 256, fresh);
        EXPECT_TRUE(fresh);
        rec.derived_copy(src, 1, 256, fresh);  // other's copy took the scratch over
        EXPECT_TRUE(fresh);
        rec.derived_copy(src, 1, 256, fresh);
        EXPECT_FALSE(fresh);
        rec.copy(other, src, {{.srcOffset = 0, .dstOffset = 1020, .size = 4}});  // writes src's last word
        rec.derived_copy(src, 1, 256, fresh);
        EXPECT_TRUE(fresh);
        rec.copy(src, other, {{.srcOffset = 0, .dstOffset = 0, .size = 4}});  // reads src
        rec.derived_copy(src, 1, 256, fresh);
        EXPECT_FALSE(fresh);
        EXPECT_EQ(owned.size(), 1u);
        const BoundTensor big = rec.derived_copy(src, 1, 4096, fresh);
        EXPECT_TRUE(fresh);
        EXPECT_EQ(big.range, 4096u);
        EXPECT_EQ(owned.size(), 2u);
    }
    commands.end(false);
    for (const DeviceAllocation& d : owned) device.memory().release(d);
}

// The second region (matmul_id's route beside x's fp16 copy): taking it
// leaves the first region's copy current, and it is reused as derived_copy's
// is, until a command writes its source or another derivation takes it.
TEST(VulkanRecording, DerivedAsideLeavesTheCopyCurrent) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    VulkanDevice& device = vulkan->device();
    TestCommands commands(device);
    const TwoBuffers buffers(device);
    const BoundTensor x = buffers.first(), ids = buffers.second();
    std::vector<DeviceAllocation> owned;
    {
        Recorder rec(*vulkan, commands.cb(), owned);
        bool fresh = false;
        const BoundTensor copy = rec.derived_copy(x, 0, 512, fresh);
        EXPECT_TRUE(fresh);
        const BoundTensor route = rec.derived_aside(ids, 7, 256, fresh);
        EXPECT_TRUE(fresh);
        EXPECT_TRUE(route.buffer != copy.buffer || route.offset >= copy.offset + copy.range ||
                    copy.offset >= route.offset + route.range);
        rec.derived_copy(x, 0, 512, fresh);  // the route did not take the copy's place
        EXPECT_FALSE(fresh);
        const BoundTensor again = rec.derived_aside(ids, 7, 256, fresh);
        EXPECT_FALSE(fresh);
        EXPECT_EQ(again.buffer, route.buffer);
        EXPECT_EQ(again.offset, route.offset);
        rec.derived_aside(ids, 8, 256, fresh);  // another form
        EXPECT_TRUE(fresh);
        rec.derived_aside(ids, 7, 256, fresh);
        EXPECT_TRUE(fresh);
        rec.derived_aside(ids, 7, 256, fresh);
        EXPECT_FALSE(fresh);
        rec.copy(x, ids, {{.srcOffset = 0, .dstOffset = 0, .size = 4}});  // writes the ids
        rec.derived_aside(ids, 7, 256, fresh);
        EXPECT_TRUE(fresh);
        rec.derived_copy(x, 0, 512, fresh);  // x was only read
        EXPECT_FALSE(fresh);
    }
    commands.end(false);
    for (const DeviceAllocation& d : owned) device.memory().release(d);
}

// Which tensor's kernel can write a matmul input's fp16 copy: the input
// itself or what it reshapes (same elements, same order), never a view that
// reorders, skips or starts past the first element; and the copy's form, one
// for all contiguous layouts (a reshape finds its source's copy), another for
// each strided one. Needs no device: the backend asks this on tensor-core
// devices only, which CI lacks.
TEST(VulkanHalfCopy, WriterIsTheTensorAnInputReshapes) {
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {64, 8, 1, 1});
    Tensor* y = rms_norm(x, 1e-5f);
    Tensor* heads = reshape(y, {16, 4, 8, 1});
    Tensor* flat_again = reshape(heads, {64, 8, 1, 1});
    EXPECT_EQ(vkk::half_copy_writer(*y), y);
    EXPECT_EQ(vkk::half_copy_writer(*heads), y);
    EXPECT_EQ(vkk::half_copy_writer(*flat_again), y);
    EXPECT_EQ(vkk::half_copy_writer(*permute(heads, {0, 2, 1, 3})), nullptr);  // reordered
    // Dense views of y's first or last 4 rows: part of y.
    const Strides half_rows = dense_strides(GgmlType::F32, {64, 4, 1, 1});
    EXPECT_EQ(vkk::half_copy_writer(*view(y, {64, 4, 1, 1}, half_rows)), nullptr);
    EXPECT_EQ(vkk::half_copy_writer(*view(y, {64, 4, 1, 1}, half_rows, 4 * y->nb[1])), nullptr);

    EXPECT_EQ(vkk::half_copy_form(*y), vkk::half_copy_form(*heads));
    const Tensor* swapped = permute(heads, {0, 2, 1, 3});
    const Tensor* other = permute(heads, {1, 0, 2, 3});
    EXPECT_NE(vkk::half_copy_form(*swapped), vkk::half_copy_form(*y));
    EXPECT_NE(vkk::half_copy_form(*swapped), vkk::half_copy_form(*other));
}

// Records y's kernel on its own, the recording asking for y's fp16 copy (as
// when a tensor-core matmul reads y) when `wanted`, then the copy as its
// reader asks for it, and runs it: the copy's values and the dispatches.
struct HalfCopyRun {
    std::vector<float> values;
    uint32_t dispatches = 0;
};
HalfCopyRun run_with_half_copy(VulkanBackend& vulkan, const Tensor& y, bool wanted) {
    VulkanDevice& device = vulkan.device();
    const VkDeviceSize bytes = VkDeviceSize(y.nelements()) * 2;
    const DeviceAllocation host = device.memory().allocate(bytes, MemoryKind::Host);
    std::vector<DeviceAllocation> owned;
    HalfCopyRun result;
    {
        TestCommands commands(device);
        Recorder rec(vulkan, commands.cb(), owned);
        if (wanted) rec.want_half_copy(y);
        find_kernel<VulkanKernel>(*y.op)->record(y, rec);
        const vkk::HalfCopy copy = vkk::record_half_copy(y, rec);
        result.dispatches = rec.stats().dispatches;
        rec.copy(copy.binding, {.buffer = host.buffer, .offset = host.offset, .range = bytes}, {{0, 0, bytes}});
        rec.finish();
        commands.end(true);
    }
    const auto* halves = reinterpret_cast<const uint16_t*>(host.mapped);
    for (int64_t i = 0; i < y.nelements(); ++i) result.values.push_back(fp16_to_fp32(halves[i]));
    for (const DeviceAllocation& d : owned) device.memory().release(d);
    device.memory().release(host);
    return result;
}

// The kernels that store what a tensor-core matmul reads (rms_norm, swiglu,
// a prompt's attention) write its fp16 copy as they store it, where the
// recording asks for one: the reader finds it and records no copy of its
// own, and its values are the output's, rounded. (lavapipe has no tensor
// cores, so no recording asks there but this one.)
TEST(VulkanRecording, KernelsWriteTheHalfCopyTheirReaderWants) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t kDim = 64, kFfn = 96, kTokens = 8, kHd = 16, kHeads = 4, kKvHeads = 2;
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {kDim, kTokens, 1, 1});
    Tensor* gain = g.input("gain", GgmlType::F32, {kDim, 1, 1, 1});
    Tensor* gate = g.input("gate", GgmlType::F32, {kFfn, kTokens, 1, 1});
    Tensor* up = g.input("up", GgmlType::F32, {kFfn, kTokens, 1, 1});
    Tensor* q = g.input("q", GgmlType::F32, {kHd, kHeads, kTokens, 1});
    Tensor* k = g.input("k", GgmlType::F16, {kHd, kTokens, kKvHeads, 1});
    Tensor* v = g.input("v", GgmlType::F16, {kHd, kTokens, kKvHeads, 1});
    Tensor* pos = g.input("pos", GgmlType::I32, {kTokens, 1, 1, 1});
    Tensor* normed = rms_norm(x, 1e-5f, gain);
    Tensor* ff = swiglu(gate, up);
    Tensor* att = attention(q, k, v, pos, 0.25f);
    Executor ex(g, {normed, ff, att}, {.backends = {vulkan}});
    uint32_t seed = 20;
    for (Tensor* t : {x, gain, gate, up, q}) test::fill(t, test::random_floats(size_t(t->nelements()), seed++));
    for (Tensor* t : {k, v}) {
        std::vector<uint16_t> halves;
        for (float f : test::random_floats(size_t(t->nelements()), seed++)) halves.push_back(fp32_to_fp16(f));
        test::fill(t, halves);
    }
    std::vector<int32_t> positions(kTokens);
    for (int32_t i = 0; i < int32_t(kTokens); ++i) positions[size_t(i)] = i;
    test::fill(pos, positions);
    ex.run();

    for (const Tensor* y : {normed, ff, att}) {
        const std::vector<float> expected = test::values_of(*y);
        for (const bool wanted : {true, false}) {
            const HalfCopyRun run = run_with_half_copy(*vulkan, *y, wanted);
            // Wanted, the kernel wrote the copy; else the reader records one.
            EXPECT_EQ(run.dispatches, wanted ? 1u : 2u) << y->op->name;
            ASSERT_EQ(run.values.size(), expected.size());
            for (size_t i = 0; i < expected.size(); ++i)
                ASSERT_NEAR(run.values[i], expected[i], std::abs(expected[i]) / 1024 + 1e-7)
                    << y->op->name << (wanted ? " (written by the kernel) " : " (copied) ") << i;
        }
    }
}

// Every pipeline the backend created is listed with the driver's statistics
// where the device reports them (VK_KHR_pipeline_executable_properties;
// NVIDIA's driver does, Debian 12's lavapipe does not), and nothing is
// listed where it does not.
TEST(VulkanRecording, PipelineStatisticsWhereTheDeviceReportsThem) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {32, 1, 1, 1});
    Tensor* y = silu(rms_norm(x, 1e-5f));
    Executor ex(g, {y}, {.backends = {vulkan}});
    std::fill_n(static_cast<float*>(x->data), 32, 0.5f);
    ex.run();

    const auto stats = vulkan->pipeline_statistics();
    if (!vulkan->device().info().pipeline_statistics) {
        EXPECT_TRUE(stats.empty());
        return;
    }
    EXPECT_EQ(stats.size(), vulkan->device().pipelines().size());
    std::vector<std::string> shaders;
    for (const auto& p : stats) {
        shaders.push_back(p.shader);
        EXPECT_FALSE(p.values.empty()) << p.shader;
    }
    EXPECT_NE(std::find(shaders.begin(), shaders.end(), "rms_norm"), shaders.end());
    EXPECT_NE(std::find(shaders.begin(), shaders.end(), "silu"), shaders.end());
}

// Runs a matvec of two tokens of `type` weights with each activation precision.
void run_matvecs(const std::shared_ptr<VulkanBackend>& vulkan, GgmlType type) {
    const std::vector<uint8_t> weights = test::random_weights(type, 256, 40, 3, 0.2f);
    for (const ActivationPrecision precision : {ActivationPrecision::Q8, ActivationPrecision::Q16}) {
        Graph g;
        Tensor* x = g.input("x", GgmlType::F32, {256, 2, 1, 1});
        Tensor* y = matmul(g.weight("w", type, {256, 40, 1, 1}, weights.data()), x, precision);
        Executor ex(g, {y}, {.backends = {vulkan}});
        test::fill(x, test::random_floats(512, 4));
        ex.run();
    }
}

// Q4_0 and Q6_K matvecs run the staged variants (shaders/matvec_staged.glsl)
// wherever the device allows them, as lavapipe does in CI: x staged as bytes
// with 8-bit activations (Q6_K in units of half blocks), as two planes of
// bytes with 16-bit ones where the device has integer dot products, else as
// F32 (Q4_0; Q6_K keeps the chunked variant there).
TEST(VulkanRecording, MatvecsStageXWhereTheDeviceCan) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const VulkanDeviceInfo& info = vulkan->device().info();
    if (!info.subgroup_shuffle || info.subgroup_size < 8) GTEST_SKIP() << "no subgroup shuffles, or subgroups under 8";
    for (const GgmlType type : {GgmlType::Q4_0, GgmlType::Q6_K})
        if (find_quant_type(type) == nullptr) GTEST_SKIP() << ggml_type_traits(type).name << " is not in this build";
    run_matvecs(vulkan, GgmlType::Q4_0);
    run_matvecs(vulkan, GgmlType::Q6_K);
    PipelineCache& pipelines = vulkan->device().pipelines();
    if (info.int_dot) {
        for (const char* shader : {"matvec_staged_idot_q4_0", "matvec_staged_idot_q6_k", "matvec_staged_idot16_q4_0",
                                   "matvec_staged_idot16_q6_k"})
            EXPECT_TRUE(pipelines.created(shader)) << shader;
    } else {
        EXPECT_TRUE(pipelines.created("matvec_staged_q4_0"));
    }
}

// A token's attention over an F16 cache of head_dim 64 gives each key's
// score to 8 invocations of 16-byte loads (attention_decode_lanes.comp)
// wherever the device has subgroup shuffles over 8 or more, as lavapipe does
// in CI; the op cases attention_decode_* check its results.
TEST(VulkanRecording, DecodeAttentionSharesKeysAmongInvocationsWhereTheDeviceCan) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const VulkanDeviceInfo& info = vulkan->device().info();
    if (!info.subgroup_shuffle || info.subgroup_size < 8) GTEST_SKIP() << "no subgroup shuffles, or subgroups under 8";
    const Shape kv_shape{64, 20, 2, 1};
    std::vector<uint16_t> kc(64 * 20 * 2), vc(kc.size());
    const std::vector<float> values = test::random_floats(2 * kc.size(), 5);
    for (size_t i = 0; i < kc.size(); ++i) {
        kc[i] = fp32_to_fp16(values[i]);
        vc[i] = fp32_to_fp16(values[kc.size() + i]);
    }
    Graph g;
    Tensor* q = g.input("q", GgmlType::F32, {64, 4, 1, 1});
    Tensor* pos = g.input("pos", GgmlType::I32, {1, 1, 1, 1});
    Tensor* out = attention(q, g.external("k", GgmlType::F16, kv_shape, kc.data()),
                            g.external("v", GgmlType::F16, kv_shape, vc.data()), pos, 0.125f);
    Executor ex(g, {out}, {.backends = {vulkan}});
    test::fill(q, test::random_floats(256, 6));
    static_cast<int32_t*>(pos->data)[0] = 19;
    ex.run();
    EXPECT_TRUE(vulkan->device().pipelines().created("attention_decode_lanes"));
    EXPECT_FALSE(vulkan->device().pipelines().created("attention_decode"));
}

// A token's attention over a cache of 512 rows or more splits the keys among
// workgroups and joins their partial results (attention_decode_join.comp).
// The join takes its count of splits from the push constants, so caches of
// every length share one pipeline: a pass whose window grew during a
// generation compiles nothing (a new pipeline per window stalled a GPU's
// stream for each). Results agree with the reference backend at each length.
TEST(VulkanRecording, DecodeAttentionOfEveryCacheLengthSharesItsPipelines) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    PipelineCache& pipelines = vulkan->device().pipelines();
    size_t after_first = 0;
    // The backend keeps a device copy of each external buffer by its address:
    // every length's cache stays alive, so none reuses another's address.
    std::deque<std::vector<uint16_t>> caches;
    for (const int64_t rows : {512, 768, 600, 1280}) {
        const Shape kv_shape{64, rows, 2, 1};
        std::vector<uint16_t>& kc = caches.emplace_back(size_t(64 * rows * 2));
        std::vector<uint16_t>& vc = caches.emplace_back(kc.size());
        const std::vector<float> values = test::random_floats(2 * kc.size(), uint32_t(rows));
        for (size_t i = 0; i < kc.size(); ++i) {
            kc[i] = fp32_to_fp16(values[i]);
            vc[i] = fp32_to_fp16(values[kc.size() + i]);
        }
        const std::vector<float> qs = test::random_floats(256, 7);
        const auto run = [&](std::shared_ptr<Backend> backend) {
            Graph g;
            Tensor* q = g.input("q", GgmlType::F32, {64, 4, 1, 1});
            Tensor* pos = g.input("pos", GgmlType::I32, {1, 1, 1, 1});
            Tensor* out = attention(q, g.external("k", GgmlType::F16, kv_shape, kc.data()),
                                    g.external("v", GgmlType::F16, kv_shape, vc.data()), pos, 0.125f);
            Executor ex(g, {out}, {.backends = {std::move(backend)}});
            test::fill(q, qs);
            static_cast<int32_t*>(pos->data)[0] = int32_t(rows - 1);
            ex.run();
            return test::values_of(*out);
        };
        const std::vector<float> got = run(vulkan), expected = run(std::make_shared<ReferenceBackend>());
        EXPECT_LT(test::nmse(expected, got), 1e-10) << rows << " rows";
        if (after_first == 0) after_first = pipelines.size();
        EXPECT_EQ(pipelines.size(), after_first) << rows << " rows: a pipeline more";
    }
    EXPECT_TRUE(pipelines.created("attention_decode_join"));
}

}  // namespace
}  // namespace tessera
