// A file's bytes in memory: the file's mapped pages, or a private copy on huge
// pages (what the CPU backend reads weights from).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "gguf_test_util.hpp"
#include "support/error.hpp"
#include "support/mapped_file.hpp"

namespace tessera {
namespace {

std::vector<uint8_t> pattern(size_t n) {
    std::vector<uint8_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = uint8_t(i * 7 + i / 4099);
    return v;
}

void write_file(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Longer than a huge page and not a multiple of one, so the copy's last page is partial.
TEST(MappedFile, HugePageCopyHoldsTheFileBytesOnAnAlignedStart) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> content = pattern((size_t(3) << 20) + 4321);
    write_file(dir / "f.bin", content);
    const MappedFile copy((dir / "f.bin").string(), FileMemory::HugePageCopy);
    const MappedFile mapped((dir / "f.bin").string());
    ASSERT_EQ(copy.bytes().size(), content.size());
    ASSERT_EQ(mapped.bytes().size(), content.size());
    EXPECT_TRUE(std::equal(content.begin(), content.end(), copy.bytes().begin()));
    EXPECT_TRUE(std::equal(content.begin(), content.end(), mapped.bytes().begin()));
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.bytes().data()) % (size_t(2) << 20), 0u);
}

TEST(MappedFile, HugePageCopyOfEmptyFileIsEmpty) {
    gguf::test::ScratchDir dir;
    write_file(dir / "empty.bin", {});
    const MappedFile copy((dir / "empty.bin").string(), FileMemory::HugePageCopy);
    EXPECT_TRUE(copy.bytes().empty());
}

TEST(MappedFile, HugePageCopyNamesAMissingFile) {
    try {
        const MappedFile copy("/nonexistent/dir/weights.gguf", FileMemory::HugePageCopy);
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"/nonexistent/dir/weights.gguf", "cannot open"});
    }
}

// A FIFO without a writer would block a plain open(2): it is refused at once
// (the test would hang otherwise), as are devices and directories.
TEST(MappedFile, RefusesWhatIsNotARegularFileWithoutBlocking) {
    gguf::test::ScratchDir dir;
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    const std::pair<std::string, const char*> cases[] = {
        {(dir / "fifo").string(), "is a FIFO"}, {"/dev/zero", "is a character device"}, {dir.path().string(), "is a directory"}};
    for (const auto& [path, kind] : cases) {
        try {
            const MappedFile file(path);
            ADD_FAILURE() << path << ": expected an Error";
        } catch (const Error& e) {
            gguf::test::expect_mentions(e.what(), {path, kind, "not a regular file"});
        }
    }
}

// Moving keeps the copy alive and readable through the new owner.
TEST(MappedFile, MovedHugePageCopyStaysReadable) {
    gguf::test::ScratchDir dir;
    const std::vector<uint8_t> content = pattern(100000);
    write_file(dir / "f.bin", content);
    MappedFile first((dir / "f.bin").string(), FileMemory::HugePageCopy);
    const MappedFile second(std::move(first));
    EXPECT_TRUE(first.bytes().empty());
    ASSERT_EQ(second.bytes().size(), content.size());
    EXPECT_TRUE(std::equal(content.begin(), content.end(), second.bytes().begin()));
}

}  // namespace
}  // namespace tessera
