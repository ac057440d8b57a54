// Mixtral against llama.cpp: a tiny Llama file with llama.expert_count (a
// mixture of 4 experts, 2 used, in place of the dense feed-forward) written by
// make-model's writer (F32 weights, deterministic), over the 40 tokens of
// conformance prompt 2. llama.cpp's logits of the same file, every position,
// are committed in tests/data/mixtral/ (its README says how they were made);
// the writer must keep writing that file. The bar: within 2e-3 everywhere, the
// same argmax wherever llama.cpp's top-1 leads its top-2 by more than 1e-3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "gguf_test_util.hpp"
#include "logit_compare.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"

namespace tessera {
namespace {

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
const float kLlamaLogits[] = {
#include "data/mixtral/tiny-mixtral-F32.p2.inc"
};

double top_gap(std::span<const float> v) {
    std::vector<float> s(v.begin(), v.end());
    std::partial_sort(s.begin(), s.begin() + 2, s.end(), std::greater<>());
    return double(s[0]) - double(s[1]);
}

TEST(MixtralConformance, TinyModelMatchesLlamaCpp) {
    gguf::test::ScratchDir dir;
    const std::string path = (dir / "tiny-mixtral-F32.gguf").string();
    const model::ModelShape shape = tiny_mixtral();
    model::write_synthetic_model({.shape = shape, .arch = "llama", .plan = QuantizePlan::parse("F32"), .seed = 1},
                                 path);
    const model::Model m = model::Model::open(path);
    ASSERT_EQ(m.architecture().name, "llama");

    model::Session session(m, {.n_ctx = 1024, .kv_type = GgmlType::F32, .backend = BackendKind::Cpu});
    const std::vector<float> ours = session.eval(kTokens, /*all_logits=*/true);
    const std::span<const float> llama(kLlamaLogits);
    const size_t n_vocab = size_t(shape.n_vocab);
    ASSERT_EQ(llama.size(), kTokens.size() * n_vocab);
    ASSERT_EQ(ours.size(), llama.size());

    double max_diff = 0;
    int checked = 0;
    for (size_t p = 0; p < kTokens.size(); ++p) {
        const std::span<const float> a(ours.data() + p * n_vocab, n_vocab), b(llama.data() + p * n_vocab, n_vocab);
        for (size_t i = 0; i < n_vocab; ++i) max_diff = std::max(max_diff, std::fabs(double(a[i]) - double(b[i])));
        if (top_gap(b) > 1e-3) {
            ++checked;
            EXPECT_EQ(test::argmax(a), test::argmax(b)) << "position " << p;
        }
    }
    std::printf("[mixtral] max |tessera - llama.cpp| %.2e over %zu positions, argmax checked at %d\n", max_diff,
                kTokens.size(), checked);
    EXPECT_LE(max_diff, 2e-3);
    EXPECT_GT(checked, 30);
}

}  // namespace
}  // namespace tessera
