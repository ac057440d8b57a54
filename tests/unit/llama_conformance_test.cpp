// End to end: the conformance models run through the Llama description and
// the CPU graph, compared with the exact (float64) goldens and with how close
// llama.cpp gets to them (README sections 3 and 9). Prompt token ids come from
// the goldens, so this does not depend on the tokenizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "conformance.hpp"
#include "logit_compare.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::argmax;
using test::read_json;
using test::kl;
using test::read_f32;

struct Measures {
    double kl_last = 0;         // mean over prompts
    int top1 = 0, positions = 0;
    double max_diff_top20 = 0;  // at the exact golden's top-20 ids, all positions
    std::vector<int> greedy_equal;
};

struct FileCase {
    std::string model;  // file stem in models/
    std::string kv;     // "f16" or "f32"
    std::string golden; // llama.cpp golden stem
    ActivationPrecision activations;  // of the matmuls (Vulkan's: F32 for Q16, bytes for Q8)
    BackendKind backend = BackendKind::Cpu;
};

void PrintTo(const FileCase& fc, std::ostream* os) {
    *os << fc.model << " (KV " << fc.kv << ", " << backend_kind_name(fc.backend) << ", activations "
        << name(fc.activations) << ")";
}

// Our figures against the exact golden, llama.cpp's in `theirs` (not greedy).
Measures measure(const model::Model& m, const model::SessionOptions& options, const json& exact, const json& llama,
                 const fs::path& golden_dir, Measures& theirs) {
    const int64_t n_vocab = m.hparams().n_vocab;
    Measures ours;
    theirs = {};
    const size_t n_prompts = exact["prompts"].size();
    for (size_t p = 0; p < n_prompts; ++p) {
        const json& ep = exact["prompts"][p];
        const json& lp = llama["prompts"][p];
        const std::vector<int32_t> tokens = ep["tokens"].get<std::vector<int32_t>>();
        EXPECT_EQ(tokens, lp["tokens"].get<std::vector<int32_t>>());

        model::Session session(m, options);
        const std::vector<float> logits = session.eval(tokens, /*all_logits=*/true);
        EXPECT_EQ(session.take_notice(), "") << "every node runs on " << backend_kind_name(options.backend);
        EXPECT_EQ(logits.size(), tokens.size() * size_t(n_vocab));
        for (size_t i = 0; i < tokens.size(); ++i) {
            const std::span<const float> row(logits.data() + i * size_t(n_vocab), size_t(n_vocab));
            const json& top20 = ep["top20"][i];
            ours.top1 += argmax(row) == top20[0][0].get<int>();
            theirs.top1 += lp["top20"][i][0][0].get<int>() == top20[0][0].get<int>();
            for (const json& e : top20)
                ours.max_diff_top20 = std::max(ours.max_diff_top20, std::fabs(double(row[e[0].get<size_t>()]) - e[1].get<double>()));
            ++ours.positions;
        }
        const std::vector<float> exact_last = read_f32(golden_dir / ep["last_logits_file"].get<std::string>());
        const std::vector<float> llama_last = read_f32(golden_dir / lp["last_logits_file"].get<std::string>());
        const std::span<const float> our_last(logits.data() + (tokens.size() - 1) * size_t(n_vocab), size_t(n_vocab));
        ours.kl_last += kl(exact_last, our_last) / double(n_prompts);
        theirs.kl_last += kl(exact_last, llama_last) / double(n_prompts);

        // Greedy from the prompt, one token at a time through the cache.
        const std::vector<int> exact_greedy = ep["greedy"].get<std::vector<int>>();
        int token = argmax(our_last), equal = 0;
        for (size_t s = 0; s < exact_greedy.size() && token == exact_greedy[s]; ++s) {
            ++equal;
            if (s + 1 < exact_greedy.size()) token = argmax(session.eval(std::vector<int32_t>{token}));
        }
        ours.greedy_equal.push_back(equal);
    }
    return ours;
}

class LlamaConformance : public testing::TestWithParam<FileCase> {};

TEST_P(LlamaConformance, AtLeastAsCloseToExactAsLlamaCpp) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const FileCase& fc = GetParam();
    if (fc.backend == BackendKind::Vulkan) {
        TESSERA_VULKAN_OR_SKIP(vulkan);
    }
    const std::string stem = fc.model;
    const json exact = read_json(dir / "golden" / (stem + ".exact.json"));
    const json llama = read_json(dir / "golden" / (fc.golden + ".json"));
    const model::Model m = model::Model::open((dir / "models" / (stem + ".gguf")).string());
    const model::SessionOptions options{.n_ctx = 512,
                                        .kv_type = fc.kv == "f32" ? GgmlType::F32 : GgmlType::F16,
                                        .activations = fc.activations,
                                        .backend = fc.backend};
    Measures theirs;
    const Measures ours = measure(m, options, exact, llama, dir / "golden", theirs);

    std::string greedy;
    for (int g : ours.greedy_equal) greedy += (greedy.empty() ? "" : "/") + std::to_string(g);
    std::printf("[conformance] %-22s kv %s %-6s act %-3s | KL last %.2e (llama.cpp %.2e) | top-1 %d/%d (llama.cpp %d) | "
                "max diff top-20 %.1e | greedy %s\n",
                fc.golden.c_str(), fc.kv.c_str(), std::string(backend_kind_name(fc.backend)).c_str(),
                std::string(name(fc.activations)).c_str(), ours.kl_last,
                theirs.kl_last, ours.top1, ours.positions, theirs.top1, ours.max_diff_top20, greedy.c_str());

    // At least as close to exact as llama.cpp, by KL at the last position.
    EXPECT_LE(ours.kl_last, 1.1 * theirs.kl_last + 1e-6);
    // And by top-1 agreement with the default 16-bit activations (and on
    // Vulkan, F32). With 8-bit activations (llama.cpp's own scheme on the
    // CPU, bytes per 8 to 16 values on Vulkan) top-1 lands within a few
    // positions of llama.cpp's on either side (the random-weight files have
    // top-1 margins of 1e-3), so there it is reported only.
    if (fc.activations == ActivationPrecision::Q16) {
        EXPECT_GE(ours.top1, theirs.top1);
    }
    if (fc.kv == "f32" && stem.ends_with("F32")) {
        EXPECT_LE(ours.max_diff_top20, 1e-3);
        for (size_t p = 0; p < ours.greedy_equal.size(); ++p)
            EXPECT_EQ(ours.greedy_equal[p], int(exact["prompts"][p]["greedy"].size())) << "prompt " << p + 1;
    }
    if (stem == "stories260K-F32") {  // the published story, all 200 tokens
        EXPECT_EQ(ours.greedy_equal[0], 200);
    }
}

std::vector<FileCase> file_cases() {
    const std::vector<FileCase> files = {
        {"tiny-gqa-F32", "f32", "tiny-gqa-F32-kvf32"}, {"tiny-gqa-F32", "f16", "tiny-gqa-F32"},
        {"tiny-gqa-Q8_0", "f16", "tiny-gqa-Q8_0"},     {"tiny-gqa-Q6_K", "f16", "tiny-gqa-Q6_K"},
        {"tiny-gqa-Q5_K_M", "f16", "tiny-gqa-Q5_K_M"}, {"tiny-gqa-Q4_K_M", "f16", "tiny-gqa-Q4_K_M"},
        {"tiny-gqa-Q4_0", "f16", "tiny-gqa-Q4_0"},     {"stories260K-F32", "f32", "stories260K-F32-kvf32"},
        {"stories260K-F32", "f16", "stories260K-F32"}, {"stories260K-Q8_0", "f16", "stories260K-Q8_0"},
        {"stories260K-Q4_0", "f16", "stories260K-Q4_0"}};
    std::vector<FileCase> cases;
    for (const ActivationPrecision a : {ActivationPrecision::Q16, ActivationPrecision::Q8})
        for (FileCase fc : files) {
            fc.activations = a;
            cases.push_back(fc);
        }
    for (FileCase fc : files) {
        fc.activations = ActivationPrecision::Q16;
        fc.backend = BackendKind::Vulkan;
        cases.push_back(fc);
        // 8-bit activations: the integer-dot matvecs (Q4_0, Q8_0, Q4_K, Q5_K, Q6_K).
        if (!fc.model.ends_with("F32")) {
            fc.activations = ActivationPrecision::Q8;
            cases.push_back(fc);
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(
    Files, LlamaConformance,
    testing::ValuesIn(file_cases()),
    [](const auto& info) {
        const std::string precision(tessera::name(info.param.activations));
        std::string name = info.param.model + "_kv" + info.param.kv + "_" +
                           (info.param.backend == BackendKind::Vulkan
                                ? "vulkan" + (info.param.activations == ActivationPrecision::Q8 ? "_" + precision : "")
                                : precision);
        std::replace(name.begin(), name.end(), '-', '_');
        return name;
    });

}  // namespace
}  // namespace tessera
