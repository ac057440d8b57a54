// End-to-end checks of `tessera run / logits / trace / compare` on the
// conformance models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "conformance.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

nlohmann::json golden(const fs::path& dir, const std::string& name) {
    std::ifstream in(dir / "golden" / name);
    return nlohmann::json::parse(in);
}

// stdout only (stderr carries timings).
std::string run_stdout(const std::string& args) {
    return run_cli(args, /*with_stderr=*/false).out;
}

TEST(CliModel, RunGreedyTellsThePublishedStory) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const nlohmann::json g = golden(dir, "stories260K-F32.exact.json");
    const std::string model = (dir / "models" / "stories260K-F32.gguf").string();
    // S1: BOS only, 200 tokens. Decoded text drops the space of the first piece after BOS.
    // The output ends with a newline.
    std::string story = g["prompts"][0]["greedy_text"];
    EXPECT_EQ(run_stdout("run -m " + model + " --tokens 1 -n 200 --temp 0 --kv-type f32"), story.substr(1) + "\n");
    // S2: a text prompt, echoed as llama.cpp's CLI does; the continuation
    // starts exactly where the golden's does.
    const std::string s2 = g["prompts"][1]["greedy_text"];
    EXPECT_EQ(run_stdout("run -m " + model + " -p 'Once upon a time' -n 64 --temp 0"), "Once upon a time" + s2 + "\n");
    // The same from the file's mapped pages instead of the huge-page copy, without the echo.
    EXPECT_EQ(run_stdout("run -m " + model + " -p 'Once upon a time' -n 64 --temp 0 --mmap --no-display-prompt"),
              s2 + "\n");
}

// As in llama.cpp, an empty prompt is BOS alone: the same greedy text as --tokens 1.
TEST(CliModel, RunGeneratesFromBosWithAnEmptyPrompt) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const std::string model = (dir / "models" / "stories260K-F32.gguf").string();
    const auto empty = run_cli("run -m " + model + " -p '' -n 5 --temp 0", /*with_stderr=*/false);
    EXPECT_EQ(empty.exit_code, 0);
    EXPECT_NE(empty.out, "");
    EXPECT_EQ(empty.out, run_stdout("run -m " + model + " --tokens 1 -n 5 --temp 0"));
}

TEST(CliModel, RunReportsSpeedOnStderrAndRefusesOverlongRequests) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const std::string model = (dir / "models" / "stories260K-Q8_0.gguf").string();
    const auto ok = run_cli("run -m " + model + " -p 'Lily' -n 8 --seed 1");
    EXPECT_EQ(ok.exit_code, 0) << ok.out;
    EXPECT_NE(ok.out.find("tok/s"), std::string::npos) << ok.out;
    EXPECT_NE(ok.out.find("copied to huge pages"), std::string::npos) << ok.out;  // the CPU backend's default
    const auto mapped = run_cli("run -m " + model + " -p 'Lily' -n 8 --seed 1 --mmap");
    EXPECT_EQ(mapped.exit_code, 0) << mapped.out;
    EXPECT_NE(mapped.out.find("mapped"), std::string::npos) << mapped.out;
    const auto full = run_cli("run -m " + model + " -p 'Lily and Ben went to the park' -n 20 --ctx 16");
    EXPECT_EQ(full.exit_code, 1);
    EXPECT_NE(full.out.find("exceed the context"), std::string::npos) << full.out;
    const auto no_model = run_cli("run -p hello");
    EXPECT_EQ(no_model.exit_code, 1);
    EXPECT_NE(no_model.out.find("--model is required"), std::string::npos) << no_model.out;
}

TEST(CliModel, LogitsOfAPromptFileMatchTheExactGolden) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const fs::path out = test::temp_path("p1.f32");
    const auto r = run_cli("logits -m " + (dir / "models" / "tiny-gqa-F32.gguf").string() + " -f " +
                           (dir / "golden" / "prompts" / "p1.txt").string() + " --kv-type f32 -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const std::vector<float> ours = test::read_f32(out);
    const std::vector<float> exact = test::read_f32(dir / "golden" / "tiny-gqa-F32.p1.exact.last.f32");
    ASSERT_EQ(ours.size(), exact.size());
    double max_diff = 0;
    for (size_t i = 0; i < ours.size(); ++i) max_diff = std::max(max_diff, std::fabs(double(ours[i]) - exact[i]));
    EXPECT_LE(max_diff, 1e-3);
    fs::remove(out);
}

TEST(CliModel, TraceAndCompareFindTheFirstDivergence) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const std::string model = (dir / "models" / "tiny-gqa-Q8_0.gguf").string();
    const fs::path a = test::temp_path("trace_a"), b = test::temp_path("trace_b"), c = test::temp_path("trace_c");
    for (const auto& [path, kv] : {std::pair{a, "f32"}, std::pair{b, "f32"}, std::pair{c, "f16"}}) {
        fs::remove_all(path);
        const auto r = run_cli("trace -m " + model + " -p 'Hello world' --kv-type " + kv + " -o " + path.string());
        ASSERT_EQ(r.exit_code, 0) << r.out;
    }
    const auto same = run_cli("compare " + a.string() + " " + b.string());
    EXPECT_EQ(same.exit_code, 0) << same.out;
    EXPECT_NE(same.out.find("agree"), std::string::npos);
    // The F16 cache is the first difference: the stored values (scheduled a
    // level before the stored keys, which wait for rope).
    const auto differ = run_cli("compare " + a.string() + " " + c.string() + " --nmse 1e-12");
    EXPECT_EQ(differ.exit_code, 3) << differ.out;
    EXPECT_NE(differ.out.find("first divergence: blk.0.v_stored"), std::string::npos) << differ.out;
    for (const fs::path& p : {a, b, c}) fs::remove_all(p);
}

TEST(CliModel, CpuAndVulkanTracesAgreeNodeByNode) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::string model = (dir / "models" / "tiny-gqa-Q4_K_M.gguf").string();
    const fs::path cpu = test::temp_path("trace_cpu"), gpu = test::temp_path("trace_vulkan");
    for (const auto& [path, backend] : {std::pair{cpu, "cpu"}, std::pair{gpu, "vulkan"}}) {
        fs::remove_all(path);
        const auto r = run_cli("trace -m " + model + " -p 'The capital of France is' --backend " + backend + " -o " +
                               path.string());
        ASSERT_EQ(r.exit_code, 0) << r.out;
        EXPECT_EQ(r.out.find("has no kernel"), std::string::npos) << r.out;
    }
    const auto cmp = run_cli("compare " + cpu.string() + " " + gpu.string());
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out;
    EXPECT_NE(cmp.out.find("agree"), std::string::npos) << cmp.out;
    for (const fs::path& p : {cpu, gpu}) fs::remove_all(p);
}

}  // namespace
}  // namespace tessera
