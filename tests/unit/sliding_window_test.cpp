// Sliding-window layers (Gemma 2/3) keep a ring of W + batch cache rows
// instead of one per position (models/kv_cache.hpp). Over a prompt that wraps
// the ring several times, and the single tokens after it, a session with
// rings must compute what one with a full cache computes; stepping back
// (Session::truncate) keeps positions only while the ring still holds their
// window. Windowed files with inconsistent keys are refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "conformance.hpp"
#include "gguf_rewrite.hpp"
#include "gguf_test_util.hpp"
#include "load_error.hpp"
#include "models/kv_cache.hpp"
#include "models/model.hpp"
#include "models/session.hpp"

namespace tessera::model {
namespace {

namespace fs = std::filesystem;
using gguf::test::expect_mentions;
using test::load_error;
using gguf::test::rewritten;
using gguf::test::ScratchDir;
using gguf::test::value_of;

// Window 16; layers 0-4 windowed, layer 5 global (conformance/arch/README.md).
fs::path tiny_gemma3(const fs::path& conformance) { return conformance / "arch" / "models" / "tiny-gemma3-F32.gguf"; }

std::vector<int32_t> tokens(size_t n) {
    std::vector<int32_t> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = int32_t(3 + (i * 7919 + 13) % 509);
    return t;
}

double max_diff(std::span<const float> a, std::span<const float> b) {
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(double(a[i]) - double(b[i])));
    return d;
}

constexpr int64_t kContext = 600;

SessionOptions options(int64_t batch) { return {.n_ctx = kContext, .kv_type = GgmlType::F32, .batch = batch}; }

TEST(SlidingWindow, ARingCacheComputesWhatAFullCacheDoes) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const Model model = Model::open(tiny_gemma3(conformance).string());
    ASSERT_EQ(model.sliding_window(0), 16);
    ASSERT_EQ(model.sliding_window(5), 0);
    // One pass of the whole prompt: rows for every position.
    Session full(model, options(kContext));
    // Batches of 24: the windowed layers keep 256 rows, the global one 600.
    Session ring(model, options(24));
    const KvCache full_cache(model, kContext, GgmlType::F32, kContext), ring_cache(model, kContext, GgmlType::F32, 24);
    EXPECT_FALSE(full_cache.is_ring(0));
    EXPECT_TRUE(ring_cache.is_ring(0));
    EXPECT_EQ(ring_cache.rows(0), 256);
    EXPECT_EQ(ring_cache.rows(5), kContext);
    // K and V of 1 kv head of 32 F32 values per row.
    EXPECT_EQ(full_cache.bytes(), size_t(6 * kContext) * 2 * 32 * 4);
    EXPECT_EQ(ring_cache.bytes(), size_t(5 * 256 + kContext) * 2 * 32 * 4);

    const std::vector<int32_t> prompt = tokens(560);
    const std::vector<float> a = full.eval(prompt, true), b = ring.eval(prompt, true);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_LE(max_diff(a, b), 1e-4);
    // Then one token at a time, past position 512 (the ring's second wrap).
    for (int32_t t : tokens(30)) {
        if (full.n_past() == kContext) break;
        const std::vector<float> x = full.eval({&t, 1}), y = ring.eval({&t, 1});
        ASSERT_LE(max_diff(x, y), 1e-4) << "at position " << full.n_past() - 1;
    }
}

TEST(SlidingWindow, SteppingBackKeepsPositionsOnlyWhileTheRingHoldsTheirWindow) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const Model model = Model::open(tiny_gemma3(conformance).string());
    Session ring(model, options(24));
    const std::vector<int32_t> prompt = tokens(500);
    ring.eval(prompt);
    // 256 rows, window 16: the last 240 positions can be stepped back over.
    EXPECT_EQ(ring.truncate(490), 490);
    EXPECT_EQ(ring.n_past(), 490);
    EXPECT_EQ(ring.truncate(100), 0);
    EXPECT_EQ(ring.n_past(), 0);
    // What is kept computes as a fresh session does.
    Session fresh(model, options(24));
    const std::vector<float> again = ring.eval(std::span(prompt).first(300)), expected = fresh.eval(std::span(prompt).first(300));
    EXPECT_LE(max_diff(again, expected), 1e-5);
    ring.eval(std::span(prompt).subspan(300, 100));
    EXPECT_EQ(ring.truncate(380), 380);
    Session fresh2(model, options(24));
    fresh2.eval(std::span(prompt).first(380));
    const int32_t next = prompt[380];
    EXPECT_LE(max_diff(ring.eval({&next, 1}), fresh2.eval({&next, 1})), 1e-5);
}

TEST(SlidingWindow, InconsistentWindowKeysAreRefusedByName) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ScratchDir dir;
    const fs::path model = dir / "gemma3.gguf";
    fs::copy_file(tiny_gemma3(conformance), model);
    const std::string pattern = "gemma3.attention.sliding_window_pattern";
    gguf::Array five_bools{.elem_type = gguf::ValueType::BOOL};
    for (int i = 0; i < 5; ++i) five_bools.items.push_back(value_of(true));
    expect_mentions(load_error(rewritten(model, pattern, value_of(five_bools))), {pattern, "6", "5"});
    gguf::Array strings{.elem_type = gguf::ValueType::STRING};
    for (int i = 0; i < 6; ++i) strings.items.push_back(value_of(std::string("yes")));
    expect_mentions(load_error(rewritten(model, pattern, value_of(strings))), {pattern, "bool"});
    expect_mentions(load_error(rewritten(model, pattern, value_of(std::string("six")))), {pattern});
    expect_mentions(load_error(rewritten(model, "gemma3.attention.sliding_window", value_of(uint64_t{1} << 40))),
                    {"gemma3.attention.sliding_window", "1099511627776"});

    // A pattern of 2 (Gemma 2's) makes every other layer global.
    const Model alternate(gguf::File::open(rewritten(model, pattern, value_of(uint32_t{2})).string()));
    EXPECT_EQ(alternate.sliding_window(0), 16);
    EXPECT_EQ(alternate.sliding_window(1), 0);
    EXPECT_EQ(alternate.sliding_window(4), 16);
    // No window key: no layer has one.
    const Model none(gguf::File::open(rewritten(model, "gemma3.attention.sliding_window", value_of(uint32_t{0})).string()));
    for (int l = 0; l < 6; ++l) EXPECT_EQ(none.sliding_window(l), 0);
}

TEST(SlidingWindow, AFusedPhi3ProjectionOfTheWrongSizeIsRefusedByName) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ScratchDir dir;
    const fs::path model = dir / "phi3.gguf";
    fs::copy_file(conformance / "arch" / "models" / "tiny-phi3-F32.gguf", model);
    // One kv head instead of two: attn_qkv [128, 256] no longer holds 4 + 2 x 1 heads of 32.
    expect_mentions(load_error(rewritten(model, "phi3.attention.head_count_kv", value_of(uint32_t{1}))),
                    {"blk.0.attn_qkv.weight", "[128, 256]", "[128, 192]"});
}

}  // namespace
}  // namespace tessera::model
