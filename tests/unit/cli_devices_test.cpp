// `--devices`, `--split-mode` and `--tensor-split` on the commands that run a
// model: a split over two backends of one device (lavapipe shows one) gives
// the one device's logits, and each way a split can be wrong is an error
// that names it.
#include <gtest/gtest.h>

#include <string>

#include "cli_util.hpp"
#include "conformance.hpp"
#include "vulkan_test_util.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using test::run_cli;

std::string logits_command(const fs::path& dir, const std::string& out) {
    return "logits -m " + (dir / "models" / "tiny-gqa-Q8_0.gguf").string() + " --tokens 1,450,4996,17354 --out " + out;
}

TEST(CliDevices, SplitLogitsEqualOneDevices) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const fs::path one = test::temp_path("one_device.f32"), two = test::temp_path("two_devices.f32");
    auto r = run_cli(logits_command(dir, one.string()) + " --backend vulkan");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    r = run_cli(logits_command(dir, two.string()) + " --devices 0,0 --split-mode layer --tensor-split 1,3");
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("layers 0-0 on device 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1-3 on device 0"), std::string::npos) << r.out;
    EXPECT_EQ(test::read_f32(one), test::read_f32(two));
    fs::remove(one);
    fs::remove(two);
}

TEST(CliDevices, BadSplitsAreNamedErrors) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    TESSERA_VULKAN_OR_SKIP(vulkan);
    const std::string out = test::temp_path("never_written.f32").string();
    const std::pair<std::string, std::string> cases[] = {
        {"--devices 0,99", "no Vulkan device 99"},
        {"--devices 0,x", "'x' is not a device index"},
        {"--devices 0,0 --tensor-split 100,1", "--tensor-split 100,1 leaves device 0 no layers (the model has 4)"},
        {"--devices 0,0 --tensor-split 1,1,1", "--tensor-split 1,1,1 gives 3 shares for 2 devices"},
        {"--devices 0,0 --tensor-split 1,-1", "--tensor-split: -1 is out of range (a number > 0)"},
        {"--devices 0,0,0,0,0", "a model of 4 layers cannot be split over 5 devices"},
        {"--devices 0,0 --split-mode row", "--split-mode: row not in {layer}"},
        {"--tensor-split 1,1", "--tensor-split requires --devices"},
        {"--devices 0,0 --backend cpu", "a model split over 2 devices needs --backend vulkan"},
    };
    for (const auto& [options, message] : cases) {
        const auto r = run_cli(logits_command(dir, out) + " " + options);
        EXPECT_NE(r.exit_code, 0) << options;
        EXPECT_NE(r.out.find(message), std::string::npos) << options << ": " << r.out;
        EXPECT_FALSE(fs::exists(out)) << options;
    }
}

}  // namespace
}  // namespace tessera
