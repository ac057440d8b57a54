// Command-line arguments: out-of-range and non-finite numbers, token ids,
// prompt files, option combinations that cannot work, and the conventions
// of llama.cpp's tools that tessera follows. Models are small synthetic ones.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_util.hpp"
#include "gguf_rewrite.hpp"
#include "gguf_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using gguf::test::expect_mentions;
using gguf::test::ScratchDir;
using test::run_cli;

// A llama of 300 tokens and a training context of n_ctx.
fs::path model(const ScratchDir& dir, int64_t n_ctx = 64, int n_layer = 2) {
    const fs::path path = dir / ("model-" + std::to_string(n_ctx) + ".gguf");
    const auto r = run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer " + std::to_string(n_layer) +
                           " --n-head 2 --n-ff 128 --n-ctx " + std::to_string(n_ctx) + " --type Q8_0 -o " + path.string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return path;
}

// Exit code 1 and a message naming each of `parts`.
void expect_refused(const std::string& args, std::initializer_list<std::string_view> parts) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.out;
    expect_mentions(r.out, parts);
}

TEST(CliArgs, NumbersOutOfRangeOrNotFiniteAreRefusedNamingTheOption) {
    ScratchDir dir;
    const std::string run = "run -m " + model(dir).string() + " -p hi ";
    expect_refused(run + "--temp nan", {"--temp", "not a finite number"});
    expect_refused(run + "--temp inf", {"--temp", "not a finite number"});
    expect_refused(run + "--temp -1", {"--temp", "out of range"});
    expect_refused(run + "--top-p 2", {"--top-p", "out of range"});
    expect_refused(run + "--min-p 5", {"--min-p", "out of range"});
    expect_refused(run + "--top-k -1", {"--top-k"});
    expect_refused(run + "--repeat-penalty 0", {"--repeat-penalty"});
    expect_refused(run + "--presence-penalty nan", {"--presence-penalty"});
    expect_refused(run + "-t -3", {"--threads"});
    expect_refused(run + "-t 1000", {"--threads", "1000"});
    expect_refused(run + "-n -2", {"--n-predict"});
    expect_refused(run + "--repeat-last-n -2", {"--repeat-last-n"});
    expect_refused(run + "--seed 4294967296", {"--seed"});
    expect_refused(run + "--ctx -1", {"--ctx"});
    expect_refused(run + "--batch 0", {"--batch"});
}

TEST(CliArgs, TokenIdsMustBeInTheVocabulary) {
    ScratchDir dir;
    const std::string run = "run -m " + model(dir).string() + " -n 1 ";
    expect_refused(run + "--tokens 1,4294967297", {"--tokens", "4294967297", "300 tokens"});
    expect_refused(run + "--tokens 1,300", {"--tokens", "300 is not a token id"});
    expect_refused(run + "--tokens 1,-5", {"--tokens", "'-5'"});
    expect_refused(run + "--tokens 1,x", {"--tokens", "'x'"});
    EXPECT_EQ(run_cli(run + "--tokens '1, 299'").exit_code, 0);
}

TEST(CliArgs, BenchRefusesABosIdBeyondTheVocabulary) {
    ScratchDir dir;
    const fs::path bad = gguf::test::rewritten(model(dir), "tokenizer.ggml.bos_token_id",
                                               gguf::test::value_of<uint64_t>((uint64_t{1} << 32) + 1));
    expect_refused("bench -m " + bad.string() + " -p 4 -n 0 -r 1 -w 0",
                   {"tokenizer.ggml.bos_token_id", "4294967297 is not a token id", "300 tokens"});
}

TEST(CliArgs, PromptFilesMustBeRegularFiles) {
    ScratchDir dir;
    const std::string run = "run -m " + model(dir).string() + " -n 1 -f ";
    expect_refused(run + "/dev/zero", {"-f", "/dev/zero", "character device"});
    expect_refused(run + dir.path().string(), {"-f", dir.path().string(), "directory"});
    expect_refused(run + (dir / "absent.txt").string(), {"-f", "absent.txt", "No such file"});
    const fs::path fifo = dir / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expect_refused(run + fifo.string(), {"FIFO"});  // refused without waiting for a writer
}

TEST(CliArgs, UnknownCommandsAndRequiredModels) {
    expect_refused("frobnicate", {"unknown command 'frobnicate'", "run", "quantize", "make-model"});
    for (const char* command : {"run", "logits", "trace", "bench", "tokenize"}) {
        const auto help = run_cli(std::string(command) + " --help");
        const std::regex model_line(R"(-m,--model[^\n]*REQUIRED)");
        EXPECT_TRUE(std::regex_search(help.out, model_line)) << command << "\n" << help.out;
    }
    expect_refused("run -p hi", {"--model is required"});
}

TEST(CliArgs, OptionsThatCannotWorkTogether) {
    ScratchDir dir;
    const std::string m = model(dir).string();
    expect_refused("run -m " + m + " --chat --tokens 1,2", {"--tokens", "--chat"});
    expect_refused("run -m " + m + " -i --tokens 1,2", {"--tokens"});
    auto r = run_cli("run -m " + m + " -p hi -n 2 --chat-template zephyr");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    expect_mentions(r.out, {"warning: --chat-template has no effect without --chat or -i"});
    r = run_cli("run -m " + m + " -p hi -n 2 --ctx 4096");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    expect_mentions(r.out, {"warning: --ctx 4096 is more than", "training context of 64 tokens: using 64"});
    r = run_cli("run -m " + m + " -p hi -n 2");  // the default --ctx is capped without a word
    EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
}

// A model whose training context allows 2^30 positions: --ctx 0 asks for them
// all, and the KV cache that needs is refused with the numbers at once.
TEST(CliArgs, AContextBeyondMemoryFailsFastWithTheNumbers) {
    ScratchDir dir;
    expect_refused("run -m " + model(dir, int64_t{1} << 30, 8).string() + " -p hi -n 1 --ctx 0",
                   {"1073741824 tokens", "KV cache", "MiB of memory", "smaller context"});
}

TEST(CliArgs, LlamaCppConventions) {
    ScratchDir dir;
    const std::string m = model(dir).string();
    // --seed -1: a random seed, printed.
    auto r = run_cli("run -m " + m + " -p hi -n 2 --seed -1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(seed: \d+)"))) << r.out;
    // -c is --ctx, --ctx 0 the training context, -n -1 until EOS or the context is full.
    expect_refused("run -m " + m + " -p hi -n 100 -c 16", {"context of 16 tokens", "raise --ctx"});
    expect_refused("run -m " + m + " -p hi -n 100 --ctx 0", {"context of 64 tokens", "training context: lower -n"});
    const fs::path no_eos = gguf::test::rewritten(m, "tokenizer.ggml.eos_token_id", gguf::test::value_of(uint32_t{0xFFFFFFFF}));
    r = run_cli("run -m " + no_eos.string() + " -p hi -n -1 -c 24 --temp 0 --repeat-last-n -1");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    expect_mentions(r.out, {"the context of 24 tokens is full"});
    // The prompt is echoed before the continuation (--no-display-prompt: not), and the text ends with a newline.
    const std::string echoed = run_cli("run -m " + m + " -p hello -n 4 --temp 0", false).out;
    const std::string bare = run_cli("run -m " + m + " -p hello -n 4 --temp 0 --no-display-prompt", false).out;
    EXPECT_EQ(echoed, "hello" + bare);
    EXPECT_TRUE(bare.ends_with("\n"));
    // Lower-case type names, as llama-quantize takes them.
    EXPECT_EQ(run_cli("quantize -q " + m + " " + (dir / "q.gguf").string() + " q4_k_m").exit_code, 0);
    EXPECT_EQ(gguf::File::open((dir / "q.gguf").string()).get_uint("general.file_type"), 15u);  // Q4_K_M
}

// A Q4_K block holds 256 values: rows of 64 cannot use it, and get Q5_0,
// llama-quantize's replacement for Q4_K.
TEST(CliArgs, MakeModelWarnsOfTypesItFallsBackTo) {
    ScratchDir dir;
    const auto r = run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer 1 --n-head 2 --n-ff 128 "
                           "--n-ctx 64 --type Q4_K -o " + (dir / "m.gguf").string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    expect_mentions(r.out, {"warning:", "not a multiple of Q4_K's block of 256", "blk.0.attn_q.weight (Q5_0)"});
    EXPECT_EQ(run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 256 --n-layer 1 --n-head 2 --n-ff 512 "
                      "--n-ctx 64 --type Q4_K -o " + (dir / "fits.gguf").string()).out.find("warning"),
              std::string::npos);
}

// The CSV has the JSON's fields, in its order, one row per test.
TEST(CliArgs, BenchCsvCarriesTheJsonFields) {
    ScratchDir dir;
    const std::string m = model(dir).string();
    const auto json = nlohmann::json::parse(run_cli("bench -m " + m + " -p 8 -n 2 -r 2 -w 0 -o json", false).out);
    const std::string csv = run_cli("bench -m " + m + " -p 8 -n 2 -r 2 -w 0 -o csv", false).out;
    std::istringstream lines(csv);
    std::string header;
    std::getline(lines, header);
    std::string names;
    for (const auto& [name, _] : json[0].items()) names += (names.empty() ? "" : ",") + name;
    EXPECT_EQ(header, names);
    // Fields: commas outside double quotes separate them (the samples are a quoted list).
    const auto fields = [](const std::string& row) {
        size_t n = 1;
        bool quoted = false;
        for (const char c : row) {
            if (c == '"') quoted = !quoted;
            n += c == ',' && !quoted;
        }
        return n;
    };
    std::vector<std::string> rows;
    for (std::string row; std::getline(lines, row);) rows.push_back(row);
    ASSERT_EQ(rows.size(), 2u) << csv;
    for (const std::string& row : rows) EXPECT_EQ(fields(row), json[0].size()) << row;
    EXPECT_TRUE(std::regex_search(rows[0], std::regex(R"(,"[0-9.e+]+,[0-9.e+]+",)"))) << rows[0];  // samples_ns
}

}  // namespace
}  // namespace tessera
