// End-to-end checks of `tessera run / logits / trace / compare` on the
// conformance models.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "conformance.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

nlohmann::json golden(const fs::path& dir, const std::string& name) { return test::read_json(dir / "golden" / name); }

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

// make-model writes Gemma 3, Gemma 2 and Phi-3 files with the keys llama.cpp's
// converter writes for them (and only those of the description it writes),
// Gemma's special tokens, and files tessera opens and runs.
TEST(CliModel, MakeModelWritesGemmaAndPhi3FilesThatRun) {
    const std::string tiny = " --shape custom --n-vocab 300 --n-embd 64 --n-layer 2 --n-head 4 --n-head-kv 2 --n-ff 128 "
                             "--n-ctx 64 --type Q8_0 -q -o ";
    struct Case {
        std::string arch, extra;
        std::vector<std::pair<std::string, double>> keys;  // present, with these values
        std::vector<std::string> absent;
    };
    const Case cases[] = {
        {"gemma3", "--head-dim 32 --sliding-window 16 --rope-scale 8",
         {{"attention.sliding_window", 16}, {"rope.freq_base", 1e6}, {"rope.freq_base_swa", 1e4},
          {"attention.key_length", 32}, {"rope.scaling.factor", 8}, {"attention.layer_norm_rms_epsilon", 1e-6}},
         {"rope.dimension_count", "final_logit_softcapping", "vocab_size", "output.weight"}},
        {"gemma2", "--head-dim 32 --sliding-window 16",
         {{"attention.sliding_window", 16}, {"attn_logit_softcapping", 50}, {"final_logit_softcapping", 30},
          {"attention.value_length", 32}},
         {"rope.freq_base", "rope.freq_base_swa", "rope.dimension_count", "vocab_size", "output.weight"}},
        {"phi3", "--sliding-window 63",
         {{"attention.sliding_window", 63}, {"rope.dimension_count", 16}, {"rope.scaling.original_context_length", 64}},
         {"attention.key_length", "rope.scaling.attn_factor", "vocab_size"}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.arch);
        const fs::path path = test::temp_path(c.arch + ".gguf");
        const auto made = run_cli("make-model --arch " + c.arch + " " + c.extra + tiny + path.string());
        ASSERT_EQ(made.exit_code, 0) << made.out;
        const model::Model m = model::Model::open(path.string());
        EXPECT_EQ(m.architecture().name, c.arch);
        const gguf::File& f = m.file();
        for (const auto& [key, value] : c.keys) {
            const std::string full = c.arch + "." + key;
            ASSERT_NE(f.find(full), nullptr) << full;
            EXPECT_NEAR(f.get_float(full), value, 1e-6 * std::fabs(value)) << full;
        }
        for (const std::string& key : c.absent) {
            EXPECT_EQ(f.find(c.arch + "." + key), nullptr) << key;
            EXPECT_EQ(f.find_tensor(key), nullptr) << key;
        }
        const bool gemma = c.arch.starts_with("gemma");
        EXPECT_EQ(f.get_uint("tokenizer.ggml.bos_token_id"), gemma ? 2u : 1u);
        EXPECT_EQ(f.get_string("tokenizer.ggml.model"), "llama");
        if (gemma) {
            EXPECT_FALSE(*f.find("tokenizer.ggml.add_space_prefix")->as_bool());
        }
        model::Session session(m, {.n_ctx = 64, .kv_type = GgmlType::F32});
        const std::vector<float> logits = session.eval(std::vector<int32_t>{2, 77, 150, 9, 200});
        ASSERT_EQ(logits.size(), 300u);
        EXPECT_TRUE(std::all_of(logits.begin(), logits.end(), [](float v) { return std::isfinite(v); }));
        const auto ran = run_cli("run -m " + path.string() + " -p 'hello world' -n 4 --temp 0");
        EXPECT_EQ(ran.exit_code, 0) << ran.out;
        fs::remove(path);
    }
    // Gemma 2 without its soft-caps is refused (llama.cpp divides by them).
    const fs::path bad = test::temp_path("gemma2-nocap.gguf");
    const auto refused = run_cli("make-model --arch gemma2 --attn-softcap 0" + tiny + bad.string());
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.out.find("soft-caps"), std::string::npos) << refused.out;
}

// The presets of the new families: their architecture by default, their published shapes.
TEST(CliModel, GemmaAndPhi3PresetsCarryTheirPublishedShapes) {
    const auto g3 = model::preset_shape("gemma-3-4b");
    ASSERT_TRUE(g3.has_value());
    EXPECT_EQ(model::preset_architecture("gemma-3-4b"), "gemma3");
    EXPECT_EQ(g3->n_layer, 34);
    EXPECT_EQ(g3->head_dim(), 256);
    EXPECT_EQ(g3->linear_rope_factor, 8.0f);
    EXPECT_EQ(model::preset_shape("gemma-3-1b")->linear_rope_factor, 0.0f);
    EXPECT_EQ(model::preset_architecture("gemma-2-2b"), "gemma2");
    EXPECT_EQ(model::preset_shape("gemma-2-2b")->final_softcap, 30.0f);
    EXPECT_EQ(model::preset_architecture("phi-3-mini"), "phi3");
    EXPECT_EQ(model::preset_shape("phi-3-mini")->sliding_window, 2047);
    EXPECT_FALSE(model::preset_shape("phi-3-mini")->tied_output);
    EXPECT_EQ(model::preset_architecture("qwen3-8b"), "llama");  // as before: --arch qwen3 asks for qwen3
}

// make-model writes mixtures of experts: qwen3moe and Llama files with
// expert_count (Mixtral) with the expert keys, 3-D expert tensors typed as
// llama-quantize types them (ffn_down_exps following ffn_down's Q4_K_M rule,
// the router F32, 8-expert attn_k/attn_v Q8_0), and no expert keys in dense files.
TEST(CliModel, MakeModelWritesMixturesOfExpertsThatRun) {
    const std::string tiny = " --shape custom --n-vocab 300 --n-embd 256 --n-layer 2 --n-head 4 --n-head-kv 2 "
                             "--n-ff 512 --n-ctx 64 -q -o ";
    struct Case {
        std::string arch, extra;
        int64_t n_expert, n_expert_used, width;
    };
    const Case cases[] = {
        {"qwen3moe", "--n-expert 8 --n-expert-used 2 --n-ff-exp 256 --head-dim 64 --type Q4_K_M", 8, 2, 256},
        {"llama", "--n-expert 4 --n-expert-used 2 --type Q4_K_M", 4, 2, 512},
        {"llama", "--n-expert 8 --n-expert-used 2 --type Q4_0", 8, 2, 512},
        {"llama", "--type Q4_K_M", 0, 0, 512},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.arch + " " + c.extra);
        const fs::path path = test::temp_path(c.arch + "-moe.gguf");
        const auto made = run_cli("make-model --arch " + c.arch + " " + c.extra + tiny + path.string());
        ASSERT_EQ(made.exit_code, 0) << made.out;
        const model::Model m = model::Model::open(path.string());
        const gguf::File& f = m.file();
        const bool moe = c.n_expert > 0;
        EXPECT_EQ(f.find(c.arch + ".expert_count") != nullptr, moe);
        EXPECT_EQ(f.find(c.arch + ".expert_used_count") != nullptr, moe);
        EXPECT_EQ(f.find(c.arch + ".expert_feed_forward_length") != nullptr, c.arch == "qwen3moe");
        EXPECT_EQ(f.find_tensor("blk.0.ffn_gate.weight") != nullptr, !moe);
        for (int l = 0; l < 2; ++l) {
            const std::string blk = "blk." + std::to_string(l) + ".";
            const gguf::TensorInfo* down = f.find_tensor(blk + (moe ? "ffn_down_exps" : "ffn_down") + ".weight");
            ASSERT_NE(down, nullptr);
            const std::vector<uint64_t> ne = moe ? std::vector<uint64_t>{uint64_t(c.width), 256, uint64_t(c.n_expert)}
                                                 : std::vector<uint64_t>{512, 256};
            EXPECT_EQ(down->ne, ne);
            // Q4_K_M's more-bits layers of 2: the last one.
            if (c.extra.ends_with("Q4_K_M")) {
                EXPECT_EQ(down->type.id, l == 1 ? GgmlType::Q6_K : GgmlType::Q4_K);
            }
            if (!moe) continue;
            EXPECT_EQ(f.get_uint(c.arch + ".expert_count"), uint64_t(c.n_expert));
            EXPECT_EQ(f.get_uint(c.arch + ".expert_used_count"), uint64_t(c.n_expert_used));
            EXPECT_EQ(f.find_tensor(blk + "ffn_gate_inp.weight")->type.id, GgmlType::F32);
            EXPECT_EQ(f.find_tensor(blk + "ffn_up_exps.weight")->ne[2], uint64_t(c.n_expert));
            const GgmlType k_type = c.n_expert == 8 ? GgmlType::Q8_0 : f.find_tensor(blk + "attn_q.weight")->type.id;
            EXPECT_EQ(f.find_tensor(blk + "attn_k.weight")->type.id, k_type);
            if (c.n_expert == 8) {
                EXPECT_EQ(f.find_tensor(blk + "attn_v.weight")->type.id, GgmlType::Q8_0);
            }
        }
        const auto ran = run_cli("run -m " + path.string() + " -p 'hello world' -n 4 --temp 0");
        EXPECT_EQ(ran.exit_code, 0) << ran.out;
        fs::remove(path);
    }
    // qwen3moe needs experts; a dense architecture has none.
    const fs::path bad = test::temp_path("moe-bad.gguf");
    EXPECT_EQ(run_cli("make-model --arch qwen3moe --type Q8_0" + tiny + bad.string()).exit_code, 1);
    EXPECT_EQ(run_cli("make-model --arch qwen3 --n-expert 4 --n-expert-used 2 --type Q8_0" + tiny + bad.string()).exit_code,
              1);
}

// The mixture-of-experts presets: their published shapes (config.json) and architectures.
TEST(CliModel, MixtureOfExpertsPresetsCarryTheirPublishedShapes) {
    const auto q = model::preset_shape("qwen3-30b-a3b");
    ASSERT_TRUE(q.has_value());
    EXPECT_EQ(model::preset_architecture("qwen3-30b-a3b"), "qwen3moe");
    EXPECT_EQ(q->n_layer, 48);
    EXPECT_EQ(q->head_dim(), 128);
    EXPECT_EQ(q->n_expert, 128);
    EXPECT_EQ(q->n_expert_used, 8);
    EXPECT_EQ(q->expert_width(), 768);
    EXPECT_FALSE(q->tied_output);
    EXPECT_NEAR(double(q->n_params()) / 1e9, 30.5, 0.1);
    const auto x = model::preset_shape("mixtral-8x7b");
    ASSERT_TRUE(x.has_value());
    EXPECT_EQ(model::preset_architecture("mixtral-8x7b"), "llama");
    EXPECT_EQ(x->n_expert, 8);
    EXPECT_EQ(x->n_expert_used, 2);
    EXPECT_EQ(x->expert_width(), 14336);
    EXPECT_NEAR(double(x->n_params()) / 1e9, 46.7, 0.1);
}

}  // namespace
}  // namespace tessera
