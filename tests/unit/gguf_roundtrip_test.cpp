// Writer::copy_of(File::open(f)).write() reproduces every conformance GGUF
// file byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"
#include "models/gguf/writer.hpp"
#include "support/mapped_file.hpp"

namespace tessera::gguf {
namespace {

std::vector<std::filesystem::path> gguf_files_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.path().extension() == ".gguf") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

void expect_byte_identical_copies(const std::filesystem::path& dir, size_t expected_files) {
    test::ScratchDir scratch;
    const auto files = gguf_files_in(dir);
    EXPECT_EQ(files.size(), expected_files);
    for (const auto& path : files) {
        SCOPED_TRACE(path.filename().string());
        const auto copy_path = scratch / path.filename().string();
        Writer::copy_of(File::open(path)).write(copy_path);

        const MappedFile original(path);
        const MappedFile copy(copy_path);
        const auto a = original.bytes(), b = copy.bytes();
        EXPECT_EQ(a.size(), b.size());
        const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
        EXPECT_TRUE(ia == a.end() && ib == b.end()) << "first difference at byte " << (ia - a.begin());
        std::filesystem::remove(copy_path);
    }
}

TEST(GgufRoundTrip, ModelFilesAreByteIdentical) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    expect_byte_identical_copies(conformance / "models", 9);
}

TEST(GgufRoundTrip, DequantFilesAreByteIdentical) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    expect_byte_identical_copies(conformance / "dequant", 16);
}

TEST(GgufRoundTrip, TokenizerFilesAreByteIdentical) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    expect_byte_identical_copies(conformance / "tokenizer", 2);
}

}  // namespace
}  // namespace tessera::gguf
