// `tessera run -i`: the chat through piped stdin on small synthetic models
// (no chat template: plain "role: content" lines). Every wait is for output,
// not for time.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <regex>

#include "cli_process.hpp"
#include "cli_util.hpp"
#include "gguf_rewrite.hpp"
#include "gguf_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using gguf::test::ScratchDir;
using test::CliProcess;

fs::path chat_model(const ScratchDir& dir, int n_ctx) {
    const fs::path path = dir / "chat.gguf";
    const auto r = test::run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer 2 --n-head 2 "
                                 "--n-ff 128 --n-ctx " + std::to_string(n_ctx) + " --type Q8_0 -o " + path.string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return path;
}

size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

// The second turn evaluates only what follows the conversation the cache holds.
TEST(CliChat, KeepsTheCacheBetweenTurns) {
    ScratchDir dir;
    CliProcess chat("run -m " + chat_model(dir, 512).string() + " -i --temp 0 -n 8");
    chat.write("hello there\n");
    ASSERT_TRUE(chat.wait_for_stderr("generation:")) << chat.err();
    chat.write("and once more\n");
    ASSERT_TRUE(chat.wait_for_stderr("reused from the cache")) << chat.err();
    chat.close_stdin();
    EXPECT_EQ(chat.wait(), 0) << chat.err();
    std::smatch first, second;
    ASSERT_TRUE(std::regex_search(chat.err(), first, std::regex(R"(prompt: (\d+) tokens in)"))) << chat.err();
    ASSERT_TRUE(std::regex_search(chat.err(), second, std::regex(R"(prompt: (\d+) new tokens \((\d+) reused)")));
    // The first turn's prompt is in the cache (but for the last token or two,
    // where the reply's text joins it and tokenizes differently).
    EXPECT_GE(std::stoi(second[2]) + 2, std::stoi(first[1])) << chat.err();
}

// A context of 64 tokens holds about one exchange: the oldest ones make
// room, every turn gets its reply, and empty lines are not sent.
TEST(CliChat, TurnsBeyondTheContextKeepGoing) {
    ScratchDir dir;
    CliProcess chat("run -m " + chat_model(dir, 64).string() + " -i --ctx 0 --temp 0 -n 16 --system-prompt Be_brief");
    for (const char* line : {"tell me a story\n", "\n", "   \n", "and then\n", "what next\n", "go on\n", "the end\n"})
        chat.write(line);
    chat.close_stdin();  // Ctrl-D
    EXPECT_EQ(chat.wait(), 0) << chat.err();
    EXPECT_EQ(count(chat.err(), "prompt: "), 5u) << chat.err();
    EXPECT_EQ(std::count(chat.out().begin(), chat.out().end(), '\n'), 5) << chat.out();
    EXPECT_NE(chat.err().find("dropped the oldest"), std::string::npos) << chat.err();
    EXPECT_NE(chat.err().find("(the system prompt stays)"), std::string::npos) << chat.err();
    EXPECT_TRUE(chat.err().ends_with("> \n")) << chat.err();  // the end of input leaves a newline
}

// Ctrl-C during a reply stops it and the chat asks for the next message;
// Ctrl-C at that prompt ends the program cleanly. The model has no EOS and a
// context of 65536 tokens, so the reply runs until the signal stops it.
TEST(CliChat, CtrlCStopsTheReplyThenEndsTheChat) {
    ScratchDir dir;
    const fs::path model = gguf::test::rewritten(chat_model(dir, 65536), "tokenizer.ggml.eos_token_id",
                                                 gguf::test::value_of(uint32_t{0xFFFFFFFF}));
    CliProcess chat("run -m " + model.string() + " -i --ctx 0 -n -1 --temp 0");
    ASSERT_TRUE(chat.wait_for_stderr("> ")) << chat.err();
    chat.write("talk\n");
    ASSERT_TRUE(chat.wait_until([&] { return !chat.out().empty(); })) << chat.err();  // the reply has begun
    chat.signal(SIGINT);
    ASSERT_TRUE(chat.wait_for_stderr("the reply was interrupted")) << chat.err();
    ASSERT_TRUE(chat.wait_for_stderr("> ", chat.err().find("the reply was interrupted"))) << chat.err();
    chat.signal(SIGINT);
    EXPECT_EQ(chat.wait(), 0) << chat.err();
    EXPECT_TRUE(chat.err().ends_with("> \n")) << chat.err();
    EXPECT_TRUE(chat.out().ends_with("\n"));
}

TEST(CliChat, TokensCannotStartAChat) {
    ScratchDir dir;
    const auto r = test::run_cli("run -m " + chat_model(dir, 64).string() + " --chat --tokens 1,2");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("--tokens gives token ids"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tessera
