// A mixture-of-experts feed-forward block for one token on Vulkan, every
// node on the device, run three times by one executor with new inputs: the
// recorded command buffer is resubmitted unchanged, so matmul_id must read
// the experts the router picks on the GPU, not the ones it picked when the
// buffer was recorded, and the counters the router's and the down matvecs'
// last workgroups are found by must be back at zero. The block runs fused
// (graph/vulkan/kernels/moe_fusion.hpp) as in generation: the topk (the
// router's softmax inside) in the router matvec's last workgroups,
// moe_weights inside moe_sum, swiglu inside the down matvec, the moe_sum and
// the residual add in its last workgroups.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph/vulkan/kernels/matmul_variants.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph_test_util.hpp"
#include "ops/ops.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

constexpr int64_t kDim = 256, kFfn = 64, kExperts = 16, kChosen = 4;

// Layer::moe_ffn's nodes (models/layer.cpp) for n tokens (one unless said),
// with the residual add; `normed`: of the tokens' rms_norm with a gain, read
// by the router and (one row per token) by gate and up, as a decoder layer's
// ffn norm; `after_o`: and the residual is the attention's o projection of
// `attn` plus x, as in a decoder layer (Layer::attention's residual).
struct MoeBlock {
    Graph g;
    std::vector<std::vector<uint8_t>> weights;
    Tensor *x = nullptr, *attn = nullptr, *ids = nullptr, *weight = nullptr, *out = nullptr;

    // `router_scale`: of the router's random weights; the default's logits
    // give one chosen expert nearly all the weight.
    explicit MoeBlock(bool normed = false, int64_t n = 1, bool after_o = false, int64_t experts = kExperts,
                      int64_t chosen = kChosen, float router_scale = 0.5f) {
        uint32_t seed = 20;
        auto w = [&](GgmlType type, Shape ne, float scale = 0.5f) {
            weights.push_back(test::random_weights(type, ne[0], ne[1] * ne[2], seed, scale));
            return g.weight("w" + std::to_string(seed++), type, ne, weights.back().data());
        };
        x = g.input("x", GgmlType::F32, {kDim, n, 1, 1});
        Tensor* residual = x;
        if (after_o) {
            attn = g.input("attn", GgmlType::F32, {kDim, n, 1, 1});
            residual = matmul(w(GgmlType::Q4_0, {kDim, kDim, 1, 1}), attn, ActivationPrecision::Q16, x);
        }
        Tensor* h = residual;
        if (normed) {
            weights.push_back(test::random_weights(GgmlType::F32, kDim, 1, seed, 2.0f));
            h = rms_norm(residual, 1e-6f, g.weight("gain", GgmlType::F32, {kDim, 1, 1, 1}, weights.back().data()));
        }
        Tensor* probs = softmax(matmul(w(GgmlType::F32, {kDim, experts, 1, 1}, router_scale), h));
        ids = topk(probs, chosen);
        weight = moe_weights(probs, ids, true);
        Tensor* token = normed || n > 1 || after_o ? reshape(h, {kDim, 1, n, 1}) : x;
        Tensor* gate = matmul_id(w(GgmlType::Q4_K, {kDim, kFfn, experts, 1}), token, ids);
        Tensor* up = matmul_id(w(GgmlType::Q4_K, {kDim, kFfn, experts, 1}), token, ids);
        Tensor* y = matmul_id(w(GgmlType::Q8_0, {kFfn, kDim, experts, 1}), swiglu(gate, up), ids);
        out = add(moe_sum(y, weight), residual);
    }
};

TEST(VulkanMoe, RecordedTokenFollowsTheRoutersChoice) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    MoeBlock on_device;
    for (const Tensor& t : on_device.g.tensors()) {
        if (!t.src.empty() && !t.is_view()) {
            ASSERT_TRUE(vulkan->supports(t)) << t.op->name;
        }
    }
    Executor device(on_device.g, {on_device.out, on_device.ids}, {.backends = {vulkan}});
    std::vector<float> first_ids;
    for (uint32_t round = 0; round < 3; ++round) {
        const std::vector<float> x = test::random_floats(size_t(kDim), 100 + round, 2.0f);
        MoeBlock exact;
        Executor reference(exact.g, {exact.out, exact.ids}, {.backends = {std::make_shared<ReferenceBackend>()}});
        test::fill(exact.x, x);
        reference.run();
        test::fill(on_device.x, x);
        device.run();
        const std::vector<float> ids = test::values_of(*on_device.ids);
        EXPECT_EQ(ids, test::values_of(*exact.ids)) << "round " << round;
        EXPECT_LE(test::nmse(test::values_of(*exact.out), test::values_of(*on_device.out)), 5e-4) << "round " << round;
        if (round == 0) first_ids = ids;
        else EXPECT_NE(ids, first_ids) << "the router chose the same experts again: the test shows nothing";
    }
}

// One run of `block` on x by an executor of its own, fused or not, with
// `more` outputs: the ids, the output, the dispatches and barriers recorded
// and the values of `more` (read while the executor holds them).
struct BlockRun {
    std::vector<float> ids, out;
    uint32_t dispatches, barriers;
    std::vector<std::vector<float>> more;
};

BlockRun run_block(const std::shared_ptr<VulkanBackend>& vulkan, MoeBlock& block, const std::vector<float>& x, bool fuse,
                   const std::vector<Tensor*>& more = {}) {
    std::vector<Tensor*> outputs{block.out, block.ids};
    outputs.insert(outputs.end(), more.begin(), more.end());
    Executor e(block.g, outputs, {.backends = {vulkan}, .fuse = fuse});
    test::fill(block.x, x);
    if (block.attn) test::fill(block.attn, test::random_floats(x.size(), 17, 1.0f));
    e.run();
    const auto work = vulkan->last_recorded_work();
    BlockRun run{test::values_of(*block.ids), test::values_of(*block.out), work ? work->dispatches : 0,
                 work ? work->barriers : 0, {}};
    for (const Tensor* t : more) run.more.push_back(test::values_of(*t));
    return run;
}

// The fused block records its 10 nodes as 4 dispatches in 3 levels: the
// router's matvec with the topk in its last workgroups (the softmax inside
// the topk), gate and up, and the down matvec (swiglu inside) with the sum
// and the residual add in its last workgroups (moe_weights inside), with
// the same ids and nearly the same output; fuse off records every node, in
// 8 levels.
TEST(VulkanMoe, FusedBlockIsFourDispatchesInThreeLevels) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<float> x = test::random_floats(size_t(kDim), 7, 2.0f);
    MoeBlock blocks[2];  // each run its own graph
    const BlockRun fused = run_block(vulkan, blocks[1], x, true), apart = run_block(vulkan, blocks[0], x, false);
    EXPECT_EQ(fused.ids, apart.ids);
    EXPECT_LE(test::nmse(apart.out, fused.out), 1e-10);
    EXPECT_EQ(apart.dispatches, 10u);
    EXPECT_EQ(apart.barriers, 7u);
    EXPECT_EQ(fused.dispatches, 4u);
    EXPECT_EQ(fused.barriers, 2u);
}

// The ffn norm is computed by its three readers (the router's matvec, gate
// and up: moe_fusion.hpp), one dispatch fewer again, with the same ids and
// nearly the same output as every node on its own.
TEST(VulkanMoe, NormedBlockComputesTheNormInItsReaders) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<float> x = test::random_floats(size_t(kDim), 9, 2.0f);
    MoeBlock blocks[2] = {MoeBlock(true), MoeBlock(true)};
    const BlockRun fused = run_block(vulkan, blocks[1], x, true), apart = run_block(vulkan, blocks[0], x, false);
    EXPECT_EQ(fused.ids, apart.ids);
    EXPECT_LE(test::nmse(apart.out, fused.out), 1e-10);
    EXPECT_EQ(fused.dispatches + 7, apart.dispatches);
    EXPECT_EQ(fused.barriers, 2u);
}

// After the o projection, the router's logits are found in the o
// projection's dispatch from the rows of h' it stores (moe_fusion.hpp's
// computed_later, ROUTER_PARTIALS), the topk in its last workgroups: o,
// router and topk one dispatch, the block 4 dispatches in 3 levels as
// without the o projection, with the same ids and nearly the same output as
// every node on its own (12 dispatches).
TEST(VulkanMoe, RouterRunsInTheOProjectionsLevel) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    MoeBlock blocks[4] = {MoeBlock(true, 1, true), MoeBlock(true, 1, true), MoeBlock(true, 3, true),
                          MoeBlock(true, 3, true)};
    for (const int64_t n : {1, 3}) {
        MoeBlock* b = &blocks[n == 1 ? 0 : 2];
        const std::vector<float> x = test::random_floats(size_t(kDim * n), 19, 2.0f);
        const BlockRun fused = run_block(vulkan, b[1], x, true), apart = run_block(vulkan, b[0], x, false);
        EXPECT_EQ(fused.ids, apart.ids) << n << " tokens";
        EXPECT_LE(test::nmse(apart.out, fused.out), 1e-10) << n << " tokens";
        EXPECT_EQ(apart.dispatches, 12u) << n << " tokens";
        EXPECT_EQ(fused.dispatches, 4u) << n << " tokens";
        EXPECT_EQ(fused.barriers, 2u) << n << " tokens";
    }
}

// With more experts than vkk::kMaxRoutedExperts the router reads the o
// projection's inputs instead of its rows (moe_router_split.hpp): o and the
// split router two dispatches of one level, the block 5 dispatches in 3
// levels, with the same ids and nearly the same output as every node on its
// own, for 1 and 3 tokens. Run again with new inputs, the recorded command
// buffer follows the new choice (the router's counter back at zero).
TEST(VulkanMoe, ManyExpertsRouteBesideTheOProjection) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t experts = vkk::kMaxRoutedExperts + 1;
    for (const int64_t n : {1, 3}) {
        MoeBlock fused(true, n, true, experts);
        Executor device(fused.g, {fused.out, fused.ids}, {.backends = {vulkan}});
        std::vector<float> first_ids;
        for (uint32_t round = 0; round < 3; ++round) {
            const std::vector<float> x = test::random_floats(size_t(kDim * n), 23 + round, 2.0f);
            MoeBlock apart_block(true, n, true, experts);
            const BlockRun apart = run_block(vulkan, apart_block, x, false);
            test::fill(fused.x, x);
            test::fill(fused.attn, test::random_floats(x.size(), 17, 1.0f));  // as run_block fills it
            device.run();
            const std::vector<float> ids = test::values_of(*fused.ids);
            EXPECT_EQ(ids, apart.ids) << n << " tokens, round " << round;
            EXPECT_LE(test::nmse(apart.out, test::values_of(*fused.out)), 1e-10) << n << " tokens, round " << round;
            if (round == 0) {
                const auto work = vulkan->last_recorded_work();
                ASSERT_TRUE(work);
                EXPECT_EQ(work->dispatches, 5u) << n << " tokens";
                EXPECT_EQ(work->barriers, 2u) << n << " tokens";
                first_ids = ids;
            } else {
                EXPECT_NE(ids, first_ids) << "the router chose the same experts again: the test shows nothing";
            }
        }
    }
}

// The down matvec's first subgroup finds the split router's weights while
// its workgroup stages x, an invocation per slot, for up to
// vkk::kStagedMinSubgroup slots a token; with more, its last workgroups
// find them from the logits (matvec_moe.glsl's slot_scale). Both give the
// same ids and nearly the same output as every node on its own, with
// router logits small enough that every chosen expert weighs (and the
// split router's rounding shows: NMSE about 1e-10).
TEST(VulkanMoe, SplitRoutersWeightsForFewAndManyChosenExperts) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t experts = vkk::kMaxRoutedExperts + 1;
    for (const int64_t chosen : {kChosen, int64_t(vkk::kStagedMinSubgroup) + 1}) {
        const std::vector<float> x = test::random_floats(size_t(kDim), 37, 2.0f);
        MoeBlock blocks[2] = {MoeBlock(true, 1, true, experts, chosen, 0.02f),
                              MoeBlock(true, 1, true, experts, chosen, 0.02f)};
        const BlockRun fused = run_block(vulkan, blocks[1], x, true), apart = run_block(vulkan, blocks[0], x, false);
        EXPECT_EQ(fused.ids, apart.ids) << chosen << " chosen";
        EXPECT_LE(test::nmse(apart.out, fused.out), 1e-8) << chosen << " chosen";
        EXPECT_EQ(fused.dispatches, 5u) << chosen << " chosen";
    }
}

// Where the weights of the experts are an output, nothing may read the split
// router's unscaled logits as probabilities: the router keeps a level of its
// own after the o projection, with the same ids, weights and output as every
// node on its own.
TEST(VulkanMoe, StoredWeightsKeepTheRoutersLevel) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t experts = vkk::kMaxRoutedExperts + 1;
    MoeBlock blocks[2] = {MoeBlock(true, 1, true, experts), MoeBlock(true, 1, true, experts)};
    const std::vector<float> x = test::random_floats(size_t(kDim), 29, 2.0f);
    const BlockRun apart = run_block(vulkan, blocks[0], x, false, {blocks[0].weight});
    const BlockRun kept = run_block(vulkan, blocks[1], x, true, {blocks[1].weight});
    EXPECT_EQ(kept.ids, apart.ids);
    EXPECT_LE(test::nmse(apart.out, kept.out), 1e-10);
    EXPECT_LE(test::nmse(apart.more[0], kept.more[0]), 1e-10);
    EXPECT_EQ(kept.barriers, 3u);
}

// Where the router's softmax is stored (an output), the softmax's kernel
// records the router's matvec, then the softmax, and the topk ranks the
// stored probabilities: two dispatches more; where the moe_sum is stored,
// the down matvec sums in its last workgroups as before, from those
// probabilities, and the residual add is a dispatch of its own. The same ids
// and output.
TEST(VulkanMoe, StoredSoftmaxAndSumTakeTheirOwnDispatches) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::vector<float> x = test::random_floats(size_t(kDim), 13, 2.0f);
    MoeBlock blocks[2];
    const Tensor* sum = blocks[1].out->src[0];
    const Tensor* probs = blocks[1].ids->src[0];
    ASSERT_EQ(sum->op->name, "moe_sum");
    ASSERT_EQ(probs->op->name, "softmax");
    const BlockRun apart = run_block(vulkan, blocks[0], x, false);
    const BlockRun kept = run_block(vulkan, blocks[1], x, true, {const_cast<Tensor*>(sum), const_cast<Tensor*>(probs)});
    EXPECT_EQ(kept.ids, apart.ids);
    EXPECT_LE(test::nmse(apart.out, kept.out), 1e-10);
    // router, softmax, topk; gate, up; down (swiglu inside) and the sum (weights inside); add
    EXPECT_EQ(kept.dispatches, 7u);
}

// A prompt's block (more tokens than the matvec takes), every node on its
// own: gate, up and down run as grouped matmuls that read one list of slots
// per expert, routed once (Recorder::derived_aside), so the block is one
// dispatch per node (10) and one route, and one fp16 copy of x where gate
// and up read it on the tensor cores (swiglu writes down's as it stores);
// the output matches the reference's.
TEST(VulkanMoe, PromptMatmulsShareOneRoute) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    constexpr int64_t n = 40;
    const std::vector<float> x = test::random_floats(size_t(kDim * n), 11, 2.0f);
    MoeBlock on_device(false, n), exact(false, n);
    const BlockRun run = run_block(vulkan, on_device, x, false);
    Executor reference(exact.g, {exact.out, exact.ids}, {.backends = {std::make_shared<ReferenceBackend>()}});
    test::fill(exact.x, x);
    reference.run();
    EXPECT_EQ(run.ids, test::values_of(*exact.ids));
    EXPECT_LE(test::nmse(test::values_of(*exact.out), run.out), 5e-4);
    const uint32_t x_copies = vulkan->device().coopmat() ? 1 : 0;
    EXPECT_EQ(run.dispatches, 10 + 1 + x_copies);
}

}  // namespace
}  // namespace tessera
