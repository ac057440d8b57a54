// `tessera inspect` on hostile input: a FIFO (which must not block it) and
// keys, names and values whose bytes would drive a terminal; its --ctx
// memory report.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli_process.hpp"
#include "cli_util.hpp"
#include "conformance.hpp"
#include "gguf_rewrite.hpp"
#include "gguf_test_util.hpp"

namespace tessera {
namespace {

using gguf::test::ScratchDir;
using gguf::test::value_of;

TEST(CliInspect, AFifoIsRefusedWithoutWaitingForAWriter) {
    ScratchDir dir;
    const auto fifo = dir / "model.gguf";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    test::CliProcess inspect("inspect " + fifo.string());
    EXPECT_TRUE(inspect.wait_for_stderr("is a FIFO, not a regular file")) << inspect.err();
    EXPECT_EQ(inspect.wait(), 1);
}

// ESC sequences (set the window title, clear the screen, colour), BEL, DEL,
// a C1 control (U+009B, an 8-bit CSI) and a backslash, in a key, a string
// value and a tensor name; UTF-8 text stays readable.
TEST(CliInspect, ControlBytesAreShownEscapedInHex) {
    ScratchDir dir;
    gguf::Writer w;
    w.add_kv("evil\x1b]0;pwned\x07key", value_of(std::string("\x1b[2J\x7f\\ ok \xc3\xbc \xc2\x9b")));
    const float one = 1.0f;
    w.add_tensor("t\x1b[31m", GgmlType::F32, {1}, std::span(reinterpret_cast<const uint8_t*>(&one), sizeof one));
    const auto path = dir / "evil.gguf";
    w.write(path.string());

    const auto text = test::run_cli("inspect " + path.string(), false);
    ASSERT_EQ(text.exit_code, 0) << text.out;
    for (const char raw : {'\x1b', '\x07', '\x7f'}) EXPECT_EQ(text.out.find(raw), std::string::npos) << int(raw);
    EXPECT_EQ(text.out.find("\xc2\x9b"), std::string::npos);
    for (const char* shown : {"evil\\x1b]0;pwned\\x07key", "\"\\x1b[2J\\x7f\\\\ ok \xc3\xbc \\xc2\\x9b\"", "t\\x1b[31m"})
        EXPECT_NE(text.out.find(shown), std::string::npos) << shown << "\n" << text.out;

    const auto json = test::run_cli("inspect --json " + path.string(), false);
    ASSERT_EQ(json.exit_code, 0) << json.out;
    EXPECT_TRUE(std::all_of(json.out.begin(), json.out.end(), [](char c) { return c >= 0x20 ? c < 0x7f : c == '\n'; }))
        << json.out;
    const auto parsed = nlohmann::json::parse(json.out);
    EXPECT_EQ(parsed["tensors"][0]["name"], "t\x1b[31m");
}

}  // namespace
}  // namespace tessera

namespace tessera {
namespace {

// The memory a session would take, with a sliding-window model's smaller
// cache: tiny-gemma3 has 5 windowed layers (window 16) and one global layer,
// 1 kv head of 32 values. At 32768 tokens in f16 and batches of 512, the
// global layer keeps 32768 rows (4 MiB of K and V) and each windowed one 768
// (16 + 512 rounded up to 256), as llama-server of llama.cpp's 2026-09
// release also allocates them (4.00 + 0.47 MiB).
TEST(CliInspect, CtxReportsTheKvCacheWithSlidingWindowRings) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const auto model = conformance / "arch" / "models" / "tiny-gemma3-F32.gguf";
    const auto r = test::run_cli("inspect " + model.string() + " --ctx 32768", false);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("a context of 32768 tokens (KV cache f16, batches of 512): KV cache 4.5 MiB"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("5 of 6 layers attend to a sliding window of 16 positions and keep 768 cache rows each"),
              std::string::npos)
        << r.out;
    const auto f32 = test::run_cli("inspect " + model.string() + " --ctx 1000 --kv-type f32 --batch 8", false);
    // 1000 + 5 x 256 rows of K and V, 32 floats each: 2280 x 256 bytes = 0.56 MiB.
    EXPECT_NE(f32.out.find("KV cache 0.6 MiB"), std::string::npos) << f32.out;
    EXPECT_NE(f32.out.find("keep 256 cache rows each"), std::string::npos) << f32.out;
}

}  // namespace
}  // namespace tessera
