// Gemma 2 against llama.cpp: a tiny Gemma 2 written by make-model's writer
// (F32 weights, deterministic) over the 40 tokens of conformance prompt 2,
// which cross the sliding window of 8 several times. llama.cpp's logits of
// the same file, every position, are committed in tests/data/gemma2/ (its
// README says how they were made); the writer must keep writing that file. The bar is the architecture conformance
// one for Gemma (arch_conformance_test.cpp): within 3e-3 everywhere, the same
// argmax wherever llama.cpp's top-1 leads its top-2 by more than 1e-3.
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

// Conformance prompt 2 (conformance/arch/golden/prompts.json).
const std::vector<int32_t> kTokens = {249, 161, 121, 26,  40,  297, 274, 106, 191, 4,   55,  324, 220, 401,
                                      154, 233, 326, 505, 65,  303, 305, 82,  109, 71,  188, 401, 131, 462,
                                      130, 510, 168, 66,  51,  113, 155, 396, 161, 355, 90,  388};

// llama.cpp's logits, position after position.
const float kLlamaLogits[] = {
#include "data/gemma2/tiny-gemma2-F32.p2.inc"
};

double top_gap(std::span<const float> v) {
    std::vector<float> s(v.begin(), v.end());
    std::partial_sort(s.begin(), s.begin() + 2, s.end(), std::greater<>());
    return double(s[0]) - double(s[1]);
}

TEST(Gemma2Conformance, TinyModelMatchesLlamaCppAcrossTheWindow) {
    gguf::test::ScratchDir dir;
    const std::string path = (dir / "tiny-gemma2-F32.gguf").string();
    const model::ModelShape shape = tiny_gemma2();
    model::write_synthetic_model({.shape = shape, .arch = "gemma2", .plan = QuantizePlan::parse("F32"), .seed = 1},
                                 path);
    const model::Model m = model::Model::open(path);
    ASSERT_EQ(m.architecture().name, "gemma2");

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
    std::printf("[gemma2] max |tessera - llama.cpp| %.2e over %zu positions, argmax checked at %d\n", max_diff,
                kTokens.size(), checked);
    EXPECT_LE(max_diff, 3e-3);
    EXPECT_GT(checked, 30);
}

}  // namespace
}  // namespace tessera
