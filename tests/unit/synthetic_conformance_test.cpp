// Architectures without files in conformance/arch, against llama.cpp: tiny
// models written by make-model's writer (F32 weights, deterministic), run
// over the 40 tokens of conformance prompt 2, compared with llama.cpp's
// logits of the same files at every position, committed in tests/data/<name>/
// (each README says how they were made; the writer must keep writing those
// files). The bar is the architecture conformance one
// (arch_conformance_test.cpp): within 2e-3 everywhere (3e-3 for Gemma, whose
// GELU llama.cpp evaluates through an f16 table), the same argmax wherever
// llama.cpp's top-1 leads its top-2 by more than 1e-3.
//  - Gemma 2: the prompt crosses the sliding window of 8 several times.
//  - Mixtral: a Llama file with llama.expert_count (a mixture of 4 experts, 2
//    used, in place of the dense feed-forward).
#include <gtest/gtest.h>

#include <cmath>

#include "gguf_test_util.hpp"
#include "logit_compare.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

// The model of tests/data/gemma2/README.md: make-model --arch gemma2 --shape
// custom with these fields, --type F32 --seed 1. Its norm weights of 4 and
// soft-caps of 1 and 3 (Gemma 2's are 50 and 30) make the soft-caps bite on
// random weights: without either cap, or with another rope base or no
// window, llama.cpp's own logits move by 0.1 to 2.8, while its f16 GELU
// table keeps logits this large within the bar.
model::ModelShape tiny_gemma2() {
    model::ModelShape s = model::custom_shape("gemma2");
    s.name = "custom";
    s.n_vocab = 512;
    s.n_embd = 64;
    s.n_layer = 4;
    s.n_head = 4;
    s.n_head_kv = 2;
    s.n_head_dim = 32;
    s.n_ff = 128;
    s.n_ctx = 256;
    s.sliding_window = 8;
    s.attn_softcap = 1;
    s.final_softcap = 3;
    s.norm_weight = 4;
    return s;
}

// The model of tests/data/mixtral/README.md: make-model --arch llama --shape
// custom with these fields, --type F32 --seed 1. With seed 1 the router's 2nd
// and 3rd most probable experts are at least 6e-4 apart at every position and
// layer, so the choice of experts is not a near tie that rounding could flip.
model::ModelShape tiny_mixtral() {
    model::ModelShape s = model::custom_shape("llama");
    s.name = "custom";
    s.n_vocab = 512;
    s.n_embd = 64;
    s.n_layer = 2;
    s.n_head = 4;
    s.n_head_kv = 2;
    s.n_ff = 96;
    s.n_ctx = 256;
    s.n_expert = 4;
    s.n_expert_used = 2;
    return s;
}

// Conformance prompt 2 (conformance/arch/golden/prompts.json).
const std::vector<int32_t> kTokens = {249, 161, 121, 26,  40,  297, 274, 106, 191, 4,   55,  324, 220, 401,
                                      154, 233, 326, 505, 65,  303, 305, 82,  109, 71,  188, 401, 131, 462,
                                      130, 510, 168, 66,  51,  113, 155, 396, 161, 355, 90,  388};

// llama.cpp's logits, position after position.
const float kGemma2Logits[] = {
#include "data/gemma2/tiny-gemma2-F32.p2.inc"
};
const float kMixtralLogits[] = {
#include "data/mixtral/tiny-mixtral-F32.p2.inc"
};

// Writes the model, runs it on `backend` with an F32 cache (every node on
// it), and holds its logits to llama.cpp's by the bar above.
void expect_matches_llama_cpp(const model::ModelShape& shape, const std::string& arch, std::span<const float> llama,
                              double bar, BackendKind backend) {
    gguf::test::ScratchDir dir;
    const std::string path = (dir / ("tiny-" + arch + "-F32.gguf")).string();
    model::write_synthetic_model({.shape = shape, .arch = arch, .plan = QuantizePlan::parse("F32"), .seed = 1}, path);
    const model::Model m = model::Model::open(path);
    ASSERT_EQ(m.architecture().name, arch);

    model::Session session(m, {.n_ctx = 1024, .kv_type = GgmlType::F32, .backend = backend});
    const std::vector<float> ours = session.eval(kTokens, /*all_logits=*/true);
    EXPECT_EQ(session.take_notice(), "") << "every node runs on " << backend_kind_name(backend);
    const size_t n_vocab = size_t(shape.n_vocab);
    ASSERT_EQ(llama.size(), kTokens.size() * n_vocab);
    ASSERT_EQ(ours.size(), llama.size());

    double max_diff = 0;
    int checked = 0;
    for (size_t p = 0; p < kTokens.size(); ++p) {
        const std::span<const float> a(ours.data() + p * n_vocab, n_vocab), b(llama.data() + p * n_vocab, n_vocab);
        for (size_t i = 0; i < n_vocab; ++i) max_diff = std::max(max_diff, std::fabs(double(a[i]) - double(b[i])));
        if (test::top_gap(b) > 1e-3) {
            ++checked;
            EXPECT_EQ(test::argmax(a), test::argmax(b)) << "position " << p;
        }
    }
    std::printf("[%s %s] max |tessera - llama.cpp| %.2e over %zu positions, argmax checked at %d\n", arch.c_str(),
                std::string(backend_kind_name(backend)).c_str(), max_diff, kTokens.size(), checked);
    EXPECT_LE(max_diff, bar);
    EXPECT_GT(checked, 30);
}

TEST(SyntheticConformance, TinyGemma2MatchesLlamaCppAcrossTheWindow) {
    expect_matches_llama_cpp(tiny_gemma2(), "gemma2", kGemma2Logits, 3e-3, BackendKind::Cpu);
}

TEST(SyntheticConformance, TinyGemma2OnVulkanMatchesLlamaCppAcrossTheWindow) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    expect_matches_llama_cpp(tiny_gemma2(), "gemma2", kGemma2Logits, 3e-3, BackendKind::Vulkan);
}

TEST(SyntheticConformance, TinyMixtralMatchesLlamaCpp) {
    expect_matches_llama_cpp(tiny_mixtral(), "llama", kMixtralLogits, 2e-3, BackendKind::Cpu);
}

TEST(SyntheticConformance, TinyMixtralOnVulkanMatchesLlamaCpp) {
    TESSERA_VULKAN_OR_SKIP(vulkan);
    expect_matches_llama_cpp(tiny_mixtral(), "llama", kMixtralLogits, 2e-3, BackendKind::Vulkan);
}

}  // namespace
}  // namespace tessera
