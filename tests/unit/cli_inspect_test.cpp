// `tessera inspect` on hostile input: a FIFO (which must not block it) and
// keys, names and values whose bytes would drive a terminal.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli_process.hpp"
#include "cli_util.hpp"
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
