// Batched decoding (models/batch_session.hpp) on Vulkan: a pass over several
// sequences runs wholly on the device (attention and cache stores of every
// sequence included, graph/vulkan/kernels/attention.cpp, set_rows.cpp), and
// each sequence's greedy tokens are those a Session of its own gives there.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/transfer.hpp"
#include "greedy_util.hpp"
#include "logit_compare.hpp"
#include "models/batch_session.hpp"
#include "models/decoder_graph.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "vulkan_test_util.hpp"

namespace tessera::model {
namespace {

using test::prompt_ids;

// The ops of the nodes a pass placed on a backend other than the first
// (views and the transfers between backends aside).
std::string ops_off_the_device(const Executor& exec) {
    std::string ops;
    for (const Tensor* t : exec.schedule())
        if (!t->is_view() && t->backend != 0 && t->op != &ops::kTransfer) ops += std::string(t->op->name) + " ";
    return ops;
}

// BatchSession's decode pass, built as it builds it: one token for each
// of n_seq sequences, an F16 and an F32 cache.
TEST(VulkanBatch, DecodePassOfSeveralSequencesRunsWhollyOnTheDevice) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const Model m = Model::open((conformance / "models" / "stories260K-F32.gguf").string());
    for (const GgmlType kv : {GgmlType::F16, GgmlType::F32})
        for (const int64_t n_seq : {int64_t(3), int64_t(16)}) {
            KvCache cache(m, 64, kv, 16, n_seq);
            auto pass = build_decoder_pass(m, cache, n_seq, 0, true, ActivationPrecision::Q16, 64,
                                           {.first = 0, .count = n_seq});
            Executor exec(pass->graph, {pass->logits}, {.backends = {vulkan, std::make_shared<CpuBackend>()}});
            EXPECT_EQ(ops_off_the_device(exec), "") << n_seq << " sequences, kv " << ggml_type_traits(kv).name;
        }
}

// Sequences with prompts of different lengths decode together; the
// shortest stop early, so the last steps have idle sequences. Nine of them
// fill several column groups of the matvec (matvec_fusion.hpp: kMatvecCols),
// whose prologues, ropes and cache stores must each take their own tokens.
void expect_decoding_together_as_alone(const std::filesystem::path& conformance, int n_seq) {
    const Model m = Model::open((conformance / "models" / "stories260K-F32.gguf").string());
    const SessionOptions o{.n_ctx = 128, .backend = BackendKind::Vulkan};
    std::vector<std::vector<int32_t>> prompts;
    std::vector<int> lengths;
    for (int i = 0; i < n_seq; ++i) {
        prompts.push_back(prompt_ids(2 + (i * 7) % 17, uint32_t(i + 1)));
        lengths.push_back(i % 3 == 2 ? 6 : 12);
    }

    BatchSession batch(m, o, int64_t(prompts.size()));
    std::vector<std::vector<int32_t>> got(prompts.size());
    std::vector<std::vector<float>> logits(prompts.size());
    for (size_t i = 0; i < prompts.size(); ++i) logits[i] = batch.eval(int64_t(i), prompts[i]);
    for (bool more = true; more;) {
        more = false;
        std::vector<BatchSession::Step> steps;
        std::vector<size_t> who;
        for (size_t i = 0; i < prompts.size(); ++i) {
            if (int(got[i].size()) == lengths[i]) continue;
            const int32_t t = int32_t(test::argmax(logits[i]));
            got[i].push_back(t);
            if (int(got[i].size()) == lengths[i]) continue;
            steps.push_back({int64_t(i), t});
            who.push_back(i);
        }
        if (steps.empty()) break;
        more = true;
        const auto results = batch.decode(steps);
        for (size_t k = 0; k < who.size(); ++k) logits[who[k]] = results[k];
    }
    for (size_t i = 0; i < prompts.size(); ++i) {
        std::string notice;
        EXPECT_EQ(got[i], test::greedy_alone(m, o, prompts[i], lengths[i], &notice)) << "sequence " << i;
        EXPECT_EQ(notice, "") << "every node of a single sequence runs on Vulkan";
    }
}

TEST(VulkanBatch, SequencesDecodeAsTheyWouldAlone) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    expect_decoding_together_as_alone(conformance, 3);
}

TEST(VulkanBatch, NineSequencesDecodeAsTheyWouldAlone) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    expect_decoding_together_as_alone(conformance, 9);
}

}  // namespace
}  // namespace tessera::model
