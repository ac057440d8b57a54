// The commands that write files (quantize, make-model, dequant, logits,
// trace) on outputs that are devices, links, or their own input, in a scratch
// directory. As root (CI) the /dev/null case would destroy the device if it
// were replaced.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_util.hpp"
#include "gguf_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using gguf::test::expect_mentions;
using gguf::test::read_bytes;
using gguf::test::ScratchDir;
using test::run_cli;

// A small synthetic model: an input for quantize, dequant and logits.
fs::path make_model(const ScratchDir& dir) {
    const fs::path path = dir / "model.gguf";
    const auto r = run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer 1 --n-head 2 --n-ff 128 "
                           "--n-ctx 32 --type Q8_0 -o " + path.string());
    EXPECT_EQ(r.exit_code, 0) << r.out;
    return path;
}

TEST(CliOutput, DevicesAreWrittenThroughNotReplaced) {
    ScratchDir dir;
    const fs::path model = make_model(dir);
    for (const std::string& args : std::vector<std::string>{
             "make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer 1 --n-head 2 --n-ff 128 --n-ctx 32 -o /dev/null",
          "quantize -q " + model.string() + " /dev/null Q4_0", "dequant " + model.string() + " output.weight /dev/null",
          "logits -m " + model.string() + " -p hi -o /dev/null"}) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
        ASSERT_TRUE(fs::is_character_file("/dev/null")) << args;
    }
    if (fs::exists("/dev/full")) {
        const auto r = run_cli("quantize -q " + model.string() + " /dev/full Q8_0");
        EXPECT_EQ(r.exit_code, 1);
        expect_mentions(r.out, {"/dev/full", "No space left on device"});
        EXPECT_TRUE(fs::is_character_file("/dev/full"));
    }
}

TEST(CliOutput, ALinkPlantedAtTheOldTemporaryNameIsNotFollowed) {
    ScratchDir dir;
    const fs::path model = make_model(dir);
    std::ofstream(dir / "victim") << "precious";
    fs::create_symlink(dir / "victim", dir / "out.gguf.tmp");
    EXPECT_EQ(run_cli("quantize -q " + model.string() + " " + (dir / "out.gguf").string() + " Q8_0").exit_code, 0);
    EXPECT_EQ(run_cli("make-model -q --shape custom --n-vocab 300 --n-embd 64 --n-layer 1 --n-head 2 --n-ff 128 "
                      "--n-ctx 32 -o " + (dir / "out.gguf").string()).exit_code, 0);
    const std::vector<uint8_t> victim = read_bytes(dir / "victim");
    EXPECT_EQ(std::string(victim.begin(), victim.end()), "precious");
    EXPECT_TRUE(fs::is_symlink(dir / "out.gguf.tmp"));
}

// A symlink output is followed: its target gets the file, the link stays a link.
TEST(CliOutput, ASymlinkOutputWritesItsTarget) {
    ScratchDir dir;
    const fs::path model = make_model(dir);
    std::ofstream(dir / "target.gguf") << "old";
    fs::create_symlink(dir / "target.gguf", dir / "link.gguf");
    const auto r = run_cli("quantize -q " + model.string() + " " + (dir / "link.gguf").string() + " Q4_0");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_TRUE(fs::is_symlink(dir / "link.gguf"));
    const auto inspected = run_cli("inspect " + (dir / "target.gguf").string());
    EXPECT_EQ(inspected.exit_code, 0) << inspected.out;
    EXPECT_NE(inspected.out.find("Q4_0"), std::string::npos) << inspected.out;
}

TEST(CliOutput, AnOutputThatIsTheInputIsRefused) {
    ScratchDir dir;
    const fs::path model = make_model(dir);
    const std::vector<uint8_t> before = read_bytes(model);
    fs::create_symlink(model, dir / "alias.gguf");
    for (const std::string& args : std::vector<std::string>{
             "quantize " + model.string() + " " + model.string() + " Q4_0",
          "quantize " + model.string() + " " + (dir / "alias.gguf").string() + " Q4_0",
          "quantize " + model.string() + " " + (dir / "." / "model.gguf").string() + " Q4_0",
          "dequant " + model.string() + " output.weight " + (dir / "alias.gguf").string(),
          "logits -m " + model.string() + " -p hi -o " + (dir / "alias.gguf").string()}) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << args;
        expect_mentions(r.out, {"is the input file"});
    }
    EXPECT_EQ(read_bytes(model), before);
    EXPECT_TRUE(fs::is_symlink(dir / "alias.gguf"));
}

TEST(CliOutput, FailuresNameThePathAndTheOsError) {
    ScratchDir dir;
    const fs::path model = make_model(dir);
    const std::string missing = (dir / "no-such-dir" / "out.f32").string();
    for (const std::string& args : std::vector<std::string>{"dequant " + model.string() + " output.weight " + missing,
                                    "logits -m " + model.string() + " -p hi -o " + missing}) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 1) << args;
        expect_mentions(r.out, {missing, "No such file or directory"});
    }
    const auto r = run_cli("quantize " + model.string() + " " + dir.path().string() + " Q4_0");
    EXPECT_EQ(r.exit_code, 1);
    expect_mentions(r.out, {dir.path().string(), "is a directory"});
}

}  // namespace
}  // namespace tessera
