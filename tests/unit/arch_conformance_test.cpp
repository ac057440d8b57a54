// Architecture conformance: the small random-weight files of
// conformance/arch/ (one per family, F32, Q8_0 and Q4_K_M) run on each
// backend and compared with llama.cpp's logits at every position, by the bar
// of that folder's README (section 6):
//  1. the F32 file with an F32 KV cache within 2e-3 of llama.cpp everywhere
//     (3e-3 for Gemma, whose GELU llama.cpp evaluates through an f16 table),
//     with the same argmax wherever llama.cpp's top-1 leads its top-2 by > 1e-3;
//  2. every file with an F16 KV cache at least as close, in mean KL over all
//     positions, to the reference (llama.cpp's F32 file with an F32 cache) as
//     llama.cpp is (<= 1.1x + 1e-6), with top-1 agreement at least llama.cpp's - 4.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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

// The families tessera runs; later architectures join the list as they land.
const char* const kArchitectures[] = {"llama3", "qwen3", "gemma3", "phi3", "qwen3moe"};
const char* const kTypes[] = {"F32", "Q8_0", "Q4_K_M"};

using test::argmax;
using test::kl;
using test::read_f32;
using test::top_gap;


struct ArchCase {
    std::string arch, type;
    BackendKind backend;
};

std::string case_name(const ArchCase& c) {
    std::string name = c.arch + "_" + c.type + "_" + std::string(backend_kind_name(c.backend));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

void PrintTo(const ArchCase& c, std::ostream* os) { *os << case_name(c); }

class ArchConformance : public testing::TestWithParam<ArchCase> {
protected:
    // Every prompt of the golden file with this KV type, each in one pass:
    // our logits next to llama.cpp's and the reference's, position by position.
    struct Rows {
        std::vector<std::vector<float>> ours, llama, reference;
    };

    Rows evaluate(const fs::path& dir, const json& golden, const std::string& kv) {
        const ArchCase& c = GetParam();
        const model::Model m = model::Model::open((dir / "models" / golden["model"].get<std::string>()).string());
        const size_t n_vocab = size_t(m.hparams().n_vocab);
        Rows rows;
        for (const json& prompt : golden["prompts"]) {
            if (prompt["kv"] != kv) continue;
            const auto tokens = prompt["tokens"].get<std::vector<int32_t>>();
            model::Session session(m, {.n_ctx = 1024,
                                       .kv_type = kv == "f32" ? GgmlType::F32 : GgmlType::F16,
                                       .backend = c.backend});
            const std::vector<float> logits = session.eval(tokens, /*all_logits=*/true);
            EXPECT_EQ(session.take_notice(), "") << "every node runs on " << backend_kind_name(c.backend);
            const std::vector<float> llama = read_f32(dir / "golden" / prompt["logits_file"].get<std::string>());
            const std::vector<float> ref = read_f32(dir / "golden" / prompt["ref_logits_file"].get<std::string>());
            if (logits.size() != tokens.size() * n_vocab || llama.size() != logits.size() || ref.size() != logits.size())
                throw std::runtime_error("logit counts differ from the goldens'");
            for (size_t p = 0; p < tokens.size(); ++p) {
                auto row = [&](const std::vector<float>& all) {
                    return std::vector<float>(all.begin() + long(p * n_vocab), all.begin() + long((p + 1) * n_vocab));
                };
                rows.ours.push_back(row(logits));
                rows.llama.push_back(row(llama));
                rows.reference.push_back(row(ref));
            }
        }
        return rows;
    }
};

// The F32 files' cases only.
class ArchF32Conformance : public ArchConformance {};

TEST_P(ArchF32Conformance, F32CacheMatchesLlamaCpp) {
    TESSERA_REQUIRE_CONFORMANCE(root);
    const ArchCase& c = GetParam();
    if (c.backend == BackendKind::Vulkan) {
        TESSERA_VULKAN_OR_SKIP(vulkan);
    }
    const fs::path dir = root / "arch";
    const Rows rows = evaluate(dir, test::read_json(dir / "golden" / ("tiny-" + c.arch + "-F32.json")), "f32");
    ASSERT_EQ(rows.ours.size(), 170u);
    double max_diff = 0;
    int checked = 0;
    for (size_t p = 0; p < rows.ours.size(); ++p) {
        for (size_t i = 0; i < rows.ours[p].size(); ++i)
            max_diff = std::max(max_diff, std::fabs(double(rows.ours[p][i]) - double(rows.llama[p][i])));
        if (top_gap(rows.llama[p]) > 1e-3) {
            ++checked;
            EXPECT_EQ(argmax(rows.ours[p]), argmax(rows.llama[p])) << "position " << p;
        }
    }
    std::printf("[arch] %-24s kv f32: max |tessera - llama.cpp| %.2e, argmax checked at %d positions\n",
                case_name(c).c_str(), max_diff, checked);
    EXPECT_LE(max_diff, c.arch.starts_with("gemma") ? 3e-3 : 2e-3);
}

TEST_P(ArchConformance, AtLeastAsCloseToTheReferenceAsLlamaCpp) {
    TESSERA_REQUIRE_CONFORMANCE(root);
    const ArchCase& c = GetParam();
    if (c.backend == BackendKind::Vulkan) {
        TESSERA_VULKAN_OR_SKIP(vulkan);
    }
    const fs::path dir = root / "arch";
    const json golden = test::read_json(dir / "golden" / ("tiny-" + c.arch + "-" + c.type + ".json"));
    const Rows rows = evaluate(dir, golden, "f16");
    ASSERT_EQ(rows.ours.size(), 170u);
    double ours_kl = 0, llama_kl = 0;
    int ours_top1 = 0, llama_top1 = 0;
    for (size_t p = 0; p < rows.ours.size(); ++p) {
        ours_kl += kl(rows.reference[p], rows.ours[p]) / double(rows.ours.size());
        llama_kl += kl(rows.reference[p], rows.llama[p]) / double(rows.ours.size());
        ours_top1 += argmax(rows.ours[p]) == argmax(rows.reference[p]);
        llama_top1 += argmax(rows.llama[p]) == argmax(rows.reference[p]);
    }
    // Our own pooling of llama.cpp's logits must agree with the README's figures.
    EXPECT_NEAR(llama_kl, golden["summary_kv_f16"]["mean_kl_vs_f32ref"].get<double>(), 1e-3 * llama_kl + 1e-12);
    EXPECT_EQ(llama_top1, golden["summary_kv_f16"]["top1_vs_f32ref"][0].get<int>());
    std::printf("[arch] %-24s kv f16: mean KL %.2e (llama.cpp %.2e), top-1 %d/170 (llama.cpp %d)\n",
                case_name(c).c_str(), ours_kl, llama_kl, ours_top1, llama_top1);
    EXPECT_LE(ours_kl, 1.1 * llama_kl + 1e-6);
    EXPECT_GE(ours_top1, llama_top1 - 4);
}

std::vector<ArchCase> arch_cases(bool f32_only) {
    std::vector<ArchCase> cases;
    for (const BackendKind backend : {BackendKind::Cpu, BackendKind::Vulkan})
        for (const char* arch : kArchitectures)
            for (const char* type : kTypes)
                if (!f32_only || std::string_view(type) == "F32") cases.push_back({arch, type, backend});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Files, ArchConformance, testing::ValuesIn(arch_cases(false)),
                         [](const auto& info) { return case_name(info.param); });
INSTANTIATE_TEST_SUITE_P(Files, ArchF32Conformance, testing::ValuesIn(arch_cases(true)),
                         [](const auto& info) { return case_name(info.param); });

}  // namespace
}  // namespace tessera
