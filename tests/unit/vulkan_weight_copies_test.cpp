// How long the Vulkan backend keeps a weight's device copy
// (Backend::preload, VulkanBackend::locate): while a plan that reads it or a
// preload handle lives. A weight freed and another written at its address
// get their own copies; a session copies its weights once, whatever plans
// come and go.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "conformance.hpp"
#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"
#include "greedy_util.hpp"
#include "models/batch_session.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

constexpr int64_t kK = 256, kRows = 64;

// y = W x of one token by an executor of its own, W's bytes at `w`, on the
// given backends; y's values.
std::vector<float> matvec(const std::vector<std::shared_ptr<Backend>>& backends, GgmlType type, const uint8_t* w,
                          const std::vector<float>& x) {
    Graph g;
    Tensor* weight = g.weight("w", type, {kK, kRows, 1, 1}, w);
    Tensor* in = g.input("x", GgmlType::F32, {kK, 1, 1, 1});
    Tensor* y = matmul(weight, in);
    Executor e(g, {y}, {.backends = backends});
    test::fill(in, x);
    e.run();
    return test::values_of(*y);
}

// One host buffer holds a weight, then (its graph and executor gone)
// another weight's bytes: the second run reads the second weight, as the
// reference does, where a copy kept by address would give the first's
// result again. F32 is copied as it is, Q4_0 regrouped.
TEST(VulkanWeightCopies, AWeightAtAFreedWeightsAddressGetsItsOwnCopy) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<float> x = test::random_floats(size_t(kK), 3);
    const std::vector<std::shared_ptr<Backend>> reference{std::make_shared<ReferenceBackend>()};
    for (GgmlType type : {GgmlType::F32, GgmlType::Q4_0}) {
        const double bound = type == GgmlType::F32 ? 1e-10 : 5e-4;  // Q4_0 takes x at 16 bits
        const std::vector<uint8_t> first = test::random_weights(type, kK, kRows, 1, 1.0f);
        const std::vector<uint8_t> second = test::random_weights(type, kK, kRows, 2, 1.0f);
        std::vector<uint8_t> host(first);
        const std::vector<float> from_first = matvec({vulkan}, type, host.data(), x);
        EXPECT_LE(test::nmse(matvec(reference, type, first.data(), x), from_first), bound);
        std::memcpy(host.data(), second.data(), host.size());
        const std::vector<float> from_second = matvec({vulkan}, type, host.data(), x);
        EXPECT_LE(test::nmse(matvec(reference, type, second.data(), x), from_second), bound)
            << ggml_type_traits(type).name << ": the first weight's copy was read";
        EXPECT_NE(from_first, from_second);
    }
}

// With a preload handle, plans that come and go read one copy; without
// one, a plan after the last one that read the weight copies it again.
TEST(VulkanWeightCopies, APreloadHandleKeepsTheCopyBetweenPlans) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<uint8_t> w = test::random_weights(GgmlType::F32, kK, kRows, 5, 1.0f);
    const std::vector<float> x = test::random_floats(size_t(kK), 6);
    const size_t bytes = w.size();
    const size_t start = vulkan->uploaded_bytes();
    {
        Graph g;
        const std::shared_ptr<void> handle = vulkan->preload(*g.weight("w", GgmlType::F32, {kK, kRows, 1, 1}, w.data()));
        ASSERT_NE(handle, nullptr);
        EXPECT_EQ(vulkan->uploaded_bytes(), start + bytes);
        const std::vector<float> once = matvec({vulkan}, GgmlType::F32, w.data(), x);
        EXPECT_EQ(matvec({vulkan}, GgmlType::F32, w.data(), x), once);
        EXPECT_EQ(vulkan->uploaded_bytes(), start + bytes);
    }
    matvec({vulkan}, GgmlType::F32, w.data(), x);
    matvec({vulkan}, GgmlType::F32, w.data(), x);
    EXPECT_EQ(vulkan->uploaded_bytes(), start + 3 * bytes);
}

// Bytes uploaded by a session's device backend so far.
size_t uploaded(const Backend& b) { return dynamic_cast<const VulkanBackend&>(b).uploaded_bytes(); }

// A Session's prompts are plans of their own, its tokens one shared plan,
// and a BatchSession's prompts each a plan: once the weights and the cache
// are on the device, further prompts and tokens copy nothing more (without
// the sessions' preload handles each prompt's plan would copy the weights
// again, after the one before had let them go).
TEST(VulkanWeightCopies, SessionsCopyTheirWeightsOnce) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    TESSERA_VULKAN_OR_SKIP(device);  // the sessions open their own backends
    const model::Model m = model::Model::open((conformance / "models" / "stories260K-F32.gguf").string());
    const model::SessionOptions o{.n_ctx = 64, .backend = BackendKind::Vulkan};
    {
        model::Session s(m, o);
        s.eval(test::prompt_ids(9, 1));
        const size_t after_first = uploaded(*s.backends().front());
        s.eval(test::prompt_ids(7, 2));
        s.eval(test::prompt_ids(1, 3));
        s.eval(test::prompt_ids(1, 4));
        s.eval(test::prompt_ids(5, 5));
        EXPECT_EQ(uploaded(*s.backends().front()), after_first);
    }
    model::BatchSession batch(m, o, 2);
    batch.eval(0, test::prompt_ids(5, 1));
    const size_t after_first = uploaded(batch.backend());
    batch.eval(0, test::prompt_ids(4, 2));
    EXPECT_EQ(uploaded(batch.backend()), after_first);
}

}  // namespace
}  // namespace tessera
