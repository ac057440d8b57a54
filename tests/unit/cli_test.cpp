// End-to-end checks of the `tessera` binary: exit codes, stderr messages and
// outputs of inspect / dequant / quantize / make-model.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "vulkan_test_util.hpp"
#include "conformance.hpp"
#include "models/gguf/file.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using test::read_f32;
using test::run_cli;
using test::temp_path;

TEST(Cli, HelpAndUsageErrors) {
    EXPECT_EQ(run_cli("--help").exit_code, 0);
    for (const char* sub : {"inspect", "dequant", "quantize", "tokenize", "run", "logits", "trace", "compare"}) {
        const auto r = run_cli(std::string(sub) + " --help");
        EXPECT_EQ(r.exit_code, 0) << sub;
        EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
    }
    EXPECT_NE(run_cli("").exit_code, 0);
    EXPECT_NE(run_cli("no-such-command").exit_code, 0);
    EXPECT_NE(run_cli("inspect").exit_code, 0);  // missing FILE
    EXPECT_NE(run_cli("tokenize -m x.gguf").exit_code, 0);             // neither -p nor -f
    EXPECT_NE(run_cli("tokenize -m x.gguf -p a -f b.txt").exit_code, 0);  // both
}

TEST(Cli, MissingAndMalformedFilesFailWithMessage) {
    auto r = run_cli("inspect /nonexistent/model.gguf");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("/nonexistent/model.gguf"), std::string::npos) << r.out;

    const auto bad = temp_path("bad.gguf");
    std::ofstream(bad, std::ios::binary) << "GGUF\x03\x00\x00";  // truncated header
    r = run_cli("inspect " + bad.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find(bad.string()), std::string::npos) << r.out;
    fs::remove(bad);
}

TEST(Cli, InspectShowsMetadataAndTensors) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto model = dir / "models/stories260K-Q8_0.gguf";
    auto r = run_cli("inspect " + model.string());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("llama.embedding_length"), std::string::npos);
    EXPECT_NE(r.out.find("blk.0.ffn_down.weight"), std::string::npos);
    EXPECT_NE(r.out.find("[172, 64]"), std::string::npos);  // ffn_down: rows of 172 (F16 fallback)

    r = run_cli("inspect --json " + model.string() + " 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0);
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["metadata"]["llama.block_count"]["value"], 5);
    EXPECT_EQ(j["metadata"]["tokenizer.ggml.tokens"]["value"].size(), 512u);
    bool found = false;
    for (const auto& t : j["tensors"])
        if (t["name"] == "blk.0.ffn_down.weight") {
            found = true;
            EXPECT_EQ(t["type"], "F16");
            EXPECT_EQ(t["shape"], nlohmann::json::array({172, 64}));
            EXPECT_EQ(t["bytes"], 172 * 64 * 2);
        }
    EXPECT_TRUE(found);
}

TEST(Cli, DequantMatchesGolden) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto out = temp_path("q4k.f32");
    const auto r = run_cli("dequant " + (dir / "dequant/Q4_K.gguf").string() + " blk.0.ffn_up.weight " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(read_f32(out), read_f32(dir / "dequant/Q4_K.f32"));
    fs::remove(out);

    const auto missing = run_cli("dequant " + (dir / "dequant/Q4_K.gguf").string() + " no.such.tensor " + out.string());
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.out.find("no.such.tensor"), std::string::npos) << missing.out;
}

// Requantizing the F32 model reproduces the tensor of the ggml-quantized file
// (Q8_0's quantizer is byte-exact), keeps norms F32, and falls back where rows
// do not fit the block.
TEST(Cli, QuantizeModel) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto out = temp_path("stories-q8.gguf");
    auto r = run_cli("quantize -q " + (dir / "models/stories260K-F32.gguf").string() + " " + out.string() + " Q8_0");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto ours = gguf::File::open(out.string());
    const auto ref = gguf::File::open((dir / "models/stories260K-Q8_0.gguf").string());
    for (const char* name : {"blk.0.attn_q.weight", "blk.3.ffn_up.weight", "token_embd.weight", "output.weight"}) {
        const auto& a = ours.tensor(name);
        const auto& b = ref.tensor(name);
        EXPECT_EQ(a.type.id, GgmlType::Q8_0) << name;
        ASSERT_EQ(a.data.size(), b.data.size()) << name;
        EXPECT_TRUE(std::equal(a.data.begin(), a.data.end(), b.data.begin())) << name;
    }
    EXPECT_EQ(ours.tensor("blk.0.attn_norm.weight").type.id, GgmlType::F32);
    // ffn_down rows have 172 values: no 32-block fits, so it falls back to F16 as in llama.cpp.
    EXPECT_EQ(ours.tensor("blk.0.ffn_down.weight").type.id, GgmlType::F16);
    EXPECT_EQ(ours.get_uint("general.quantization_version"), 2u);
    EXPECT_EQ(ours.get_string("tokenizer.ggml.model"), "llama");
    fs::remove(out);

    r = run_cli("quantize " + (dir / "models/stories260K-F32.gguf").string() + " " + out.string() + " Q9_9");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("Q9_9"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
}

// Quantizes the F32 file `f32` to `type` and expects every tensor's type, and
// the file type, of `reference`, which llama-quantize made from the same file.
void expect_quantized_as(const fs::path& f32, const std::string& type, const fs::path& reference) {
    SCOPED_TRACE(reference.filename().string());
    const auto out = temp_path("quantized-" + type + ".gguf");
    auto r = run_cli("quantize -q " + f32.string() + " " + out.string() + " " + type);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto ours = gguf::File::open(out.string());
    const auto ref = gguf::File::open(reference.string());
    ASSERT_EQ(ours.tensors().size(), ref.tensors().size());
    for (const auto& t : ref.tensors()) EXPECT_EQ(ours.tensor(t.name).type.id, t.type.id) << t.name;
    EXPECT_EQ(ours.get_uint("general.file_type"), ref.get_uint("general.file_type"));
    fs::remove(out);
}

// The mixes choose every tensor's type as llama-quantize did for the conformance files.
TEST(Cli, QuantizeMixesLikeLlamaCpp) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    for (const std::string mix : {"Q4_K_M", "Q5_K_M"})
        expect_quantized_as(dir / "models/tiny-gqa-F32.gguf", mix, dir / ("models/tiny-gqa-" + mix + ".gguf"));
}

// A mixture of experts too: experts typed as their dense counterparts, the
// router kept F32, rows that no k-quant block fits given llama-quantize's
// replacements (the tiny qwen3moe's rows of 64).
TEST(Cli, QuantizeTypesMixturesOfExpertsLikeLlamaCpp) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const fs::path models = dir / "arch" / "models";
    if (!fs::exists(models / "tiny-qwen3moe-F32.gguf")) GTEST_SKIP() << "no arch/models/tiny-qwen3moe-F32.gguf";
    for (const std::string type : {"Q4_K_M", "Q8_0"})
        expect_quantized_as(models / "tiny-qwen3moe-F32.gguf", type, models / ("tiny-qwen3moe-" + type + ".gguf"));
}

TEST(Cli, MakeModelWritesALoadableLlama) {
    const auto out = temp_path("synthetic.gguf");
    auto r = run_cli("make-model -q --shape custom --n-vocab 600 --n-embd 256 --n-layer 8 --n-head 4 --n-head-kv 2 "
                     "--n-ff 512 --n-ctx 256 --type Q4_K_M -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto f = gguf::File::open(out.string());
    EXPECT_EQ(f.get_uint("llama.block_count"), 8u);
    EXPECT_EQ(f.get_uint("llama.attention.head_count_kv"), 2u);
    EXPECT_EQ(f.get_uint("general.file_type"), 15u);  // llama.cpp's MOSTLY_Q4_K_M
    EXPECT_EQ(f.tensor("blk.0.attn_k.weight").ne, (std::vector<uint64_t>{256, 128}));
    EXPECT_EQ(f.tensor("blk.0.ffn_down.weight").ne, (std::vector<uint64_t>{512, 256}));
    EXPECT_EQ(f.tensor("output.weight").ne, (std::vector<uint64_t>{256, 600}));
    // Q4_K_M: Q6_K for output and for attn_v/ffn_down of the first and last
    // eighth (layers 0, 7) and every third layer in between (3, 6).
    for (int l = 0; l < 8; ++l) {
        const GgmlType want = l == 0 || l == 3 || l == 6 || l == 7 ? GgmlType::Q6_K : GgmlType::Q4_K;
        EXPECT_EQ(f.tensor("blk." + std::to_string(l) + ".attn_v.weight").type.id, want) << l;
        EXPECT_EQ(f.tensor("blk." + std::to_string(l) + ".ffn_down.weight").type.id, want) << l;
        EXPECT_EQ(f.tensor("blk." + std::to_string(l) + ".attn_q.weight").type.id, GgmlType::Q4_K) << l;
    }
    EXPECT_EQ(f.tensor("output.weight").type.id, GgmlType::Q6_K);
    EXPECT_EQ(f.get_array("tokenizer.ggml.tokens").items.size(), 600u);
    // It runs, and the same seed gives the same bytes.
    r = run_cli("run -m " + out.string() + " -p 'hello' -n 4 --temp 0", false);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    const auto again = temp_path("synthetic-again.gguf");
    ASSERT_EQ(run_cli("make-model -q --shape custom --n-vocab 600 --n-embd 256 --n-layer 8 --n-head 4 --n-head-kv 2 "
                      "--n-ff 512 --n-ctx 256 --type Q4_K_M -o " + again.string()).exit_code, 0);
    const auto g = gguf::File::open(again.string());
    const auto& a = f.tensor("blk.3.ffn_up.weight").data;
    const auto& b = g.tensor("blk.3.ffn_up.weight").data;
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    fs::remove(out);
    fs::remove(again);

    r = run_cli("make-model --shape llama-9b -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("tinyllama-1.1b"), std::string::npos) << r.out;
    r = run_cli("make-model --shape custom --n-embd 100 --n-head 3 --n-layer 1 --n-ff 64 --n-ctx 8 --n-vocab 300 -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("multiple of n_head"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, MakeModelWritesALoadableQwen2) {
    const auto out = temp_path("synthetic-qwen2.gguf");
    auto r = run_cli("make-model -q --arch qwen2 --shape custom --n-vocab 400 --n-embd 64 --n-layer 2 --n-head 4 "
                     "--n-head-kv 2 --n-ff 128 --n-ctx 64 --type Q8_0 -o " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto f = gguf::File::open(out.string());
    EXPECT_EQ(f.get_string("general.architecture"), "qwen2");
    EXPECT_EQ(f.get_uint("qwen2.block_count"), 2u);
    EXPECT_EQ(f.get_uint("qwen2.attention.head_count_kv"), 2u);
    EXPECT_EQ(f.tensor("blk.1.attn_q.bias").ne, (std::vector<uint64_t>{64}));
    EXPECT_EQ(f.tensor("blk.1.attn_k.bias").ne, (std::vector<uint64_t>{32}));
    EXPECT_EQ(f.tensor("blk.1.attn_v.bias").type.id, GgmlType::F32);
    EXPECT_EQ(f.tensor("blk.1.attn_v.weight").type.id, GgmlType::Q8_0);
    EXPECT_EQ(f.find_tensor("blk.1.attn_output.bias"), nullptr);
    EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "gpt2");
    EXPECT_EQ(f.get_string("tokenizer.ggml.pre"), "qwen2");
    EXPECT_EQ(f.get_array("tokenizer.ggml.tokens").items.size(), 400u);
    // Byte-level BPE: "a", then " ab" from the merges "Ġ a" and "Ġa b", then
    // a space and one token per digit; no BOS.
    r = run_cli("tokenize -m " + out.string() + " -p 'a ab 12'", false);
    EXPECT_EQ(r.out, "97 285 32 49 50\n");
    r = run_cli("run -m " + out.string() + " -p 'hello' -n 4 --temp 0", false);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    // With no BOS to start from, an empty prompt is refused.
    r = run_cli("run -m " + out.string() + " -p '' -n 4 --temp 0");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("adds no BOS"), std::string::npos) << r.out;
    fs::remove(out);

    r = run_cli("make-model --arch gpt2 --shape custom --n-embd 64 --n-head 4 --n-layer 1 --n-ff 64 --n-ctx 8 "
                "--n-vocab 300 -o " + out.string());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("'gpt2' is not supported"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("llama"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, BenchReportsLlamaBenchFields) {
    const auto model = temp_path("bench-model.gguf");
    ASSERT_EQ(run_cli("make-model -q --shape custom --n-vocab 400 --n-embd 64 --n-layer 2 --n-head 4 --n-ff 128 "
                      "--n-ctx 64 --type Q8_0 -o " + model.string()).exit_code, 0);
    auto r = run_cli("bench -m " + model.string() + " -p 16 -n 4 -r 3 -t 2 -o json", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    const auto runs = nlohmann::json::parse(r.out);
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0]["n_prompt"], 16);
    EXPECT_EQ(runs[0]["n_gen"], 0);
    EXPECT_EQ(runs[1]["n_prompt"], 0);
    EXPECT_EQ(runs[1]["n_gen"], 4);
    for (const auto& run : runs) {
        EXPECT_EQ(run["n_threads"], 2);
        EXPECT_EQ(run["model_type"], "llama 0M Q8_0");
        EXPECT_EQ(run["samples_ts"].size(), 3u);
        EXPECT_GT(run["avg_ts"].get<double>(), 0.0);
        // avg_ts is the mean of the per-repetition rates, each tokens / seconds.
        double sum = 0;
        for (size_t i = 0; i < 3; ++i) {
            const double tokens = run["n_prompt"].get<double>() + run["n_gen"].get<double>();
            EXPECT_NEAR(run["samples_ts"][i].get<double>(), tokens / (run["samples_ns"][i].get<double>() * 1e-9), 1e-6 * tokens * 1e9);
            sum += run["samples_ts"][i].get<double>();
        }
        EXPECT_NEAR(run["avg_ts"].get<double>(), sum / 3, 1e-9 * sum);
        EXPECT_EQ(run["model_size"].get<uint64_t>() > 0, true);
    }
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -r 1", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("| llama 0M Q8_0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("pp8"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("tg"), std::string::npos) << r.out;

    std::string no_vulkan;
    const bool vulkan = test::try_vulkan_backend(no_vulkan) != nullptr;
    r = run_cli("bench -m " + model.string() + " -p 8 -n 2 -r 1 --backend vulkan -o json", !vulkan);
    if (vulkan) {
        ASSERT_EQ(r.exit_code, 0) << r.out;
        const auto on_gpu = nlohmann::json::parse(r.out);
        EXPECT_EQ(on_gpu[0]["backends"], "Vulkan");
        EXPECT_FALSE(on_gpu[0]["gpu_info"].get<std::string>().empty());
    } else {  // a clean error naming the reason
        EXPECT_EQ(r.exit_code, 1);
        EXPECT_NE(r.out.find("Vulkan"), std::string::npos) << r.out;
    }
    // -w: untimed runs before the timed ones, each reported on stderr.
    const auto warm_ups = [](const std::string& out) {
        size_t n = 0;
        for (size_t at = out.find("warm-up"); at != std::string::npos; at = out.find("warm-up", at + 1)) ++n;
        return n;
    };
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -r 1 -w 3");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(warm_ups(r.out), 3u) << r.out;
    EXPECT_NE(r.out.find("pp8: warm-up 3/3"), std::string::npos) << r.out;
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -r 1 -w 0");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(warm_ups(r.out), 0u) << r.out;
    r = run_cli("bench -m " + model.string() + " -p 0 -n 2 -r 2 -w 2 -o json", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)[0]["n_warmup"], 2);
    EXPECT_EQ(nlohmann::json::parse(r.out)[0]["samples_ts"].size(), 2u);
    // --warmup-time: warm-ups until they have lasted that long, counted in n_warmup.
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -r 1 -w 0 --warmup-time 0.000001 -o json", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)[0]["n_warmup"], 1);
    // --profile: per-node times and the steps of a pass, after the timed runs.
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -r 2 --profile");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("pp8, per pass over the timed repetitions"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("segment 0 cpu"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("plan "), std::string::npos) << r.out;
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 --warmup-time -1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("--warmup-time must be"), std::string::npos) << r.out;
    r = run_cli("bench -m " + model.string() + " -p 8 -n 0 -w -1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("-w must be"), std::string::npos) << r.out;

    r = run_cli("bench -m " + model.string() + " -p 100 -n 0");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("context"), std::string::npos) << r.out;

    // -d: the tests run after that many tokens in the cache, which count against the context.
    r = run_cli("bench -m " + model.string() + " -p 8 -n 2 -d 40 -r 1", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("pp8 @ d40"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tg2 @ d40"), std::string::npos) << r.out;
    r = run_cli("bench -m " + model.string() + " -p 0 -n 2 -d 60 -r 1 -o json", false);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)[0]["n_depth"], 60);
    r = run_cli("bench -m " + model.string() + " -p 0 -n 8 -d 60");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("68 positions"), std::string::npos) << r.out;
    fs::remove(model);
}

TEST(Cli, Tokenize) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const std::string stories = (dir / "models/stories260K-F32.gguf").string();
    EXPECT_EQ(run_cli("tokenize -m " + stories + " -p 'Once upon a time'").out, "1 403 407 261 378\n");
    EXPECT_EQ(run_cli("tokenize -m " + stories + " -p 'Once upon a time' --no-bos").out, "403 407 261 378\n");
    EXPECT_EQ(run_cli("tokenize -m " + stories + " -f " + (dir / "golden/prompts/s3.txt").string()).out,
              "1 317 269 368 302 263 377 267 265 282 295 433\n");

    // -f takes the file's exact bytes: p2.txt ends with the newline that is part of the prompt.
    const std::string spm = (dir / "tokenizer/ggml-vocab-llama-spm.gguf").string();
    EXPECT_EQ(run_cli("tokenize -m " + spm + " -f " + (dir / "golden/prompts/p2.txt").string()).out,
              "1 15043 3186 13\n");
    EXPECT_EQ(run_cli("tokenize -m " + spm + " -p 'Hello world' --pieces").out,
              "1\t<s>\n15043\t\xE2\x96\x81Hello\n3186\t\xE2\x96\x81world\n");
    EXPECT_EQ(run_cli("tokenize -m " + spm + " -p '</s>' --no-bos --special").out, "2\n");
    EXPECT_NE(run_cli("tokenize -m " + spm + " -p '</s>' --no-bos").out, "2\n");

    const auto r = run_cli("tokenize -m " + (dir / "dequant/Q4_K.gguf").string() + " -p hi");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("tokenizer.ggml.model"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tessera
