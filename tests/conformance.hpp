// Where the llama.cpp conformance data lives, for tests that need it.
// One setting: the TESSERA_CONFORMANCE_DIR environment variable, which CTest
// sets from the CMake cache variable of the same name (default
// ../shared/conformance next to the source tree).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace tessera::test {

inline std::optional<std::filesystem::path> conformance_dir() {
    const char* env = std::getenv("TESSERA_CONFORMANCE_DIR");
    std::filesystem::path dir = env && *env ? env : TESSERA_DEFAULT_CONFORMANCE_DIR;
    if (std::filesystem::is_regular_file(dir / "README.md")) return dir;
    return std::nullopt;
}

}  // namespace tessera::test

// Skips the current test (with the reason) when the conformance data is absent;
// otherwise declares `conformance` as its path.
#define TESSERA_REQUIRE_CONFORMANCE(conformance)                                                            \
    const auto conformance##_opt = ::tessera::test::conformance_dir();                                       \
    if (!conformance##_opt)                                                                                  \
        GTEST_SKIP() << "conformance data not found (set TESSERA_CONFORMANCE_DIR or the CMake option of "    \
                        "the same name; default ../shared/conformance)";                                     \
    const std::filesystem::path conformance = *conformance##_opt
