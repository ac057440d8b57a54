// Single-token passes of a Session reuse one plan per window of cached
// positions (models/session.cpp), on the CPU as on a device. Their logits
// must be those of one pass over the whole sequence, also where a token
// crosses into the next window and after stepping back into an earlier one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "gguf_test_util.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"

namespace tessera::model {
namespace {

using gguf::test::ScratchDir;

constexpr int64_t kVocab = 300;

// The largest difference between decoded logits and row `pos` of a pass's.
double max_diff(const std::vector<float>& decoded, const std::vector<float>& pass, int64_t pos) {
    double d = 0;
    for (int64_t i = 0; i < kVocab; ++i)
        d = std::max(d, double(std::fabs(decoded[size_t(i)] - pass[size_t(pos * kVocab + i)])));
    return d;
}

// A 2-layer Llama-shaped model of kVocab tokens and 600 positions, written into dir.
Model tiny_model(const ScratchDir& dir, const std::string& types, uint64_t seed) {
    const std::string path = (dir / "tiny.gguf").string();
    const ModelShape shape{.name = "tiny", .n_vocab = kVocab, .n_embd = 64, .n_layer = 2, .n_head = 4,
                           .n_head_kv = 2, .n_ff = 96, .n_ctx = 600};
    write_synthetic_model({.shape = shape, .arch = "llama", .plan = QuantizePlan::parse(types), .seed = seed}, path);
    return Model::open(path);
}

TEST(SessionDecode, ReusedPlansAcrossWindowsGiveTheWholePassesLogits) {
    ScratchDir dir;
    const Model m = tiny_model(dir, "F32", 3);

    std::vector<int32_t> tokens(270);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = int32_t((i * 7919 + 13) % kVocab);
    const SessionOptions options{.n_ctx = 600, .kv_type = GgmlType::F32, .n_threads = 2};
    Session whole(m, options);
    const std::vector<float> pass = whole.eval(tokens, /*all_logits=*/true);
    double scale = 0;
    for (float v : pass) scale = std::max(scale, double(std::fabs(v)));
    const double tolerance = 1e-4 * scale;

    // Positions 250..269 one at a time: the window of 256 positions, then
    // (from position 256) the next one.
    Session decoding(m, options);
    decoding.eval(std::span(tokens).first(250));
    for (int64_t pos = 250; pos < 270; ++pos)
        EXPECT_LE(max_diff(decoding.eval(std::span(tokens).subspan(size_t(pos), 1)), pass, pos), tolerance)
            << "position " << pos;
    // Back to position 240: the first window's plan again.
    ASSERT_EQ(decoding.truncate(240), 240);
    for (int64_t pos = 240; pos < 260; ++pos)
        EXPECT_LE(max_diff(decoding.eval(std::span(tokens).subspan(size_t(pos), 1)), pass, pos), tolerance)
            << "position " << pos << " after stepping back";

    // The bar has teeth: the logits of the position before differ by far more.
    EXPECT_GT(max_diff(decoding.eval(std::span(tokens).subspan(260, 1)), pass, 259), 10 * tolerance);
}

// eval_in_place gives eval's logits: a prompt's (a copy), each decoding
// step's where its pass left them (also across a window's end), and, with
// the profile on (a plan per pass), a copy again.
TEST(SessionDecode, LogitsInPlaceAreThoseOfEval) {
    ScratchDir dir;
    const Model m = tiny_model(dir, "Q8_0", 5);
    std::vector<int32_t> tokens(262);
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = int32_t((i * 4099 + 7) % kVocab);

    for (const bool profile : {false, true}) {
        const SessionOptions options{.n_ctx = 600, .n_threads = 2, .profile = profile};
        Session copied(m, options), in_place(m, options);
        const std::span<const int32_t> prompt = std::span(tokens).first(250);
        const std::vector<float> first = copied.eval(prompt);
        const std::span<const float> first_in_place = in_place.eval_in_place(prompt);
        ASSERT_EQ(std::vector<float>(first_in_place.begin(), first_in_place.end()), first) << "profile " << profile;
        for (size_t pos = 250; pos < tokens.size(); ++pos) {
            const std::span<const int32_t> token = std::span(tokens).subspan(pos, 1);
            const std::vector<float> expected = copied.eval(token);
            const std::span<const float> got = in_place.eval_in_place(token);
            ASSERT_EQ(got.size(), size_t(kVocab));
            EXPECT_EQ(std::vector<float>(got.begin(), got.end()), expected)
                << "position " << pos << ", profile " << profile;
        }
    }
}

}  // namespace
}  // namespace tessera::model
