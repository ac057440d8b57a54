// The recipe for a new op (docs/architecture.md, "add an op"), followed in
// one file for an op the library does not have, twice(x) = 2x:
//   - what ops/twice.{hpp,cpp} would hold: the builder (its rules through
//     ops/common/check.hpp) and the OpDef with the scalar reference and cost;
//   - what graph/cpu/kernels/twice.cpp would hold: a CpuKernel registered
//     for the OpDef;
//   - what graph/vulkan/kernels/twice.cpp would hold: a VulkanKernel
//     registered for it (recording the scale shader with s = 2, so that no
//     shader has to be written for the test).
// Nothing is listed anywhere else, and the executor runs the op on the CPU
// and on Vulkan. A second op with a reference and no kernel shows that a
// backend runs only the ops it has registered a kernel for.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/cpu/cpu_kernel.hpp"
#include "graph/executor.hpp"
#include "graph/graph.hpp"
#include "graph/reference_backend.hpp"
#include "graph/row_loop.hpp"
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph_test_util.hpp"
#include "kernels/cpu/scale.hpp"
#include "ops/common/check.hpp"
#include "support/error.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

// ---- The op (ops/twice.{hpp,cpp}) ----

void twice_reference(const Tensor& y) {
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i) element<float>(y, i, ri) = float(2.0 * element<float>(*y.src[0], i, ri));
    });
}

OpCost twice_cost(const Tensor& y) { return {.flops = double(y.nelements()), .bytes = 8.0 * double(y.nelements())}; }

const OpDef kTwice{.name = "twice", .reference = twice_reference, .cost = twice_cost};

Tensor* twice(Tensor* x) {
    Graph& g = graph_of({x}, "twice");
    check::type("twice", *x, GgmlType::F32);
    check::rows_contiguous("twice", *x);
    return g.add_node(kTwice, GgmlType::F32, x->ne, {x});
}

// ---- Its CPU kernel (graph/cpu/kernels/twice.cpp) ----

void twice_on_cpu(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) {
        cpu::scale(reinterpret_cast<const float*>(row_ptr(*y.src[0], ri)), 2.0f, reinterpret_cast<float*>(row_ptr(y, ri)),
                   y.ne[0]);
    });
}

const CpuKernel kTwiceCpu{.op = &kTwice, .run = twice_on_cpu};
[[maybe_unused]] const bool twice_cpu_registered = register_kernel(kTwiceCpu);

// ---- Its Vulkan kernel (graph/vulkan/kernels/twice.cpp) ----

void record_twice(const Tensor& y, Recorder& rec) { vkk::record_unary("scale", *y.src[0], y, 2.0f, rec); }

const VulkanKernel kTwiceVulkan{&kTwice, vkk::f32_dense, record_twice};
[[maybe_unused]] const bool twice_vulkan_registered = register_kernel(kTwiceVulkan);

// ---- An op with a reference and no kernel ----

const OpDef kTwiceWithoutKernels{.name = "twice_without_kernels", .reference = twice_reference, .cost = twice_cost};

// Runs twice(twice(x)) (or the op without kernels) on `backends`; returns
// the output and the backend each computing node ran on.
struct Outcome {
    std::vector<float> y;
    std::vector<int> placed;
};
Outcome run(std::vector<std::shared_ptr<Backend>> backends, const std::vector<float>& x_values, bool with_kernels = true) {
    Graph g;
    Tensor* x = g.input("x", GgmlType::F32, {int64_t(x_values.size()) / 3, 3, 1, 1});
    Tensor* y = with_kernels ? twice(twice(x)) : g.add_node(kTwiceWithoutKernels, GgmlType::F32, x->ne, {x});
    Executor exec(g, {y}, {.backends = std::move(backends)});
    test::fill(x, x_values);
    exec.run();
    Outcome r{.y = test::values_of(*y)};
    for (const Tensor* t : exec.schedule()) r.placed.push_back(t->backend);
    return r;
}

TEST(OpRecipe, NewOpRunsOnTheCpuLikeItsReference) {
    const std::vector<float> x = test::random_floats(3 * 1001, 7);
    const Outcome reference = run({std::make_shared<ReferenceBackend>()}, x);
    const Outcome cpu = run({std::make_shared<CpuBackend>(2)}, x);
    EXPECT_EQ(cpu.y, reference.y);  // 4x is exact in float
    EXPECT_EQ(cpu.y[5], 4.0f * x[5]);
}

TEST(OpRecipe, NewOpRunsOnVulkanLikeItsReference) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<float> x = test::random_floats(3 * 1001, 8);
    const Outcome on_vulkan = run({vulkan, std::make_shared<CpuBackend>(1)}, x);
    EXPECT_EQ(on_vulkan.placed, (std::vector<int>{0, 0}));  // both nodes on Vulkan, its kernel found
    EXPECT_EQ(on_vulkan.y, run({std::make_shared<ReferenceBackend>()}, x).y);
}

TEST(OpRecipe, ABackendRunsOnlyOpsWithARegisteredKernel) {
    const std::vector<float> x = test::random_floats(3 * 5, 9);
    EXPECT_THROW(run({std::make_shared<CpuBackend>(1)}, x, false), Error);
    const Outcome fallback = run({std::make_shared<CpuBackend>(1), std::make_shared<ReferenceBackend>()}, x, false);
    EXPECT_EQ(fallback.placed, std::vector<int>{1});
    EXPECT_EQ(fallback.y[4], 2.0f * x[4]);
}

}  // namespace
}  // namespace tessera
