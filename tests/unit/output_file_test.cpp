// OutputFile: what each kind of output path becomes (support/output_file.hpp),
// in a scratch directory; /dev/null and /dev/full are the real devices.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "gguf_test_util.hpp"
#include "support/error.hpp"
#include "support/output_file.hpp"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using gguf::test::expect_mentions;
using gguf::test::ScratchDir;

void write_text(const fs::path& path, std::string_view text) {
    OutputFile out(path.string());
    out.write(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    out.commit();
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected a tessera::Error";
    return "";
}

size_t entries(const fs::path& dir) { return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator())); }

TEST(OutputFile, ReplacesARegularFileKeepingItsPermissions) {
    ScratchDir dir;
    write_text(dir / "out", "old");
    fs::permissions(dir / "out", fs::perms(0640));
    write_text(dir / "out", "new");
    EXPECT_EQ(read_text(dir / "out"), "new");
    EXPECT_EQ(fs::status(dir / "out").permissions(), fs::perms(0640));
    EXPECT_EQ(entries(dir.path()), 1u);  // no temporary file left
}

TEST(OutputFile, ANewFileGetsTheUmasksPermissions) {
    ScratchDir dir;
    const mode_t mask = ::umask(027);
    write_text(dir / "new", "x");
    ::umask(mask);
    EXPECT_EQ(fs::status(dir / "new").permissions(), fs::perms(0640));
}

TEST(OutputFile, DroppedWithoutCommitLeavesTheOldFile) {
    ScratchDir dir;
    write_text(dir / "out", "old");
    {
        OutputFile out((dir / "out").string());
        out.write_zeros(10);
    }
    EXPECT_EQ(read_text(dir / "out"), "old");
    EXPECT_EQ(entries(dir.path()), 1u);
}

// The name older versions used for their temporary file: a link planted there is left alone.
TEST(OutputFile, DoesNotFollowALinkPlantedAtAGuessableName) {
    ScratchDir dir;
    write_text(dir / "victim", "precious");
    fs::create_symlink(dir / "victim", dir / "out.tmp");
    write_text(dir / "out", "output");
    EXPECT_EQ(read_text(dir / "victim"), "precious");
    EXPECT_TRUE(fs::is_symlink(dir / "out.tmp"));
    EXPECT_EQ(read_text(dir / "out"), "output");
}

TEST(OutputFile, WritesThroughASymlinkToItsTarget) {
    ScratchDir dir;
    fs::create_directories(dir / "real");
    write_text(dir / "real" / "target", "old");
    fs::create_symlink(dir / "real" / "target", dir / "link");
    write_text(dir / "link", "new");
    EXPECT_TRUE(fs::is_symlink(dir / "link"));
    EXPECT_EQ(read_text(dir / "real" / "target"), "new");
    EXPECT_EQ(entries(dir.path()), 2u);
    EXPECT_EQ(entries(dir / "real"), 1u);

    fs::create_symlink(dir / "missing", dir / "dangling");
    expect_mentions(error_of([&] { OutputFile((dir / "dangling").string()); }),
                    {"dangling", "symbolic link", "No such file or directory"});
    EXPECT_TRUE(fs::is_symlink(dir / "dangling"));
}

TEST(OutputFile, WritesThroughDevicesWithoutReplacingThem) {
    write_text("/dev/null", "discarded");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    if (fs::exists("/dev/full")) {
        const std::string error = error_of([] {
            OutputFile out("/dev/full");
            out.write_zeros(1);
        });
        expect_mentions(error, {"/dev/full", "No space left on device"});
        EXPECT_TRUE(fs::is_character_file("/dev/full"));
    }
}

TEST(OutputFile, WritesIntoAFifo) {
    ScratchDir dir;
    const fs::path fifo = dir / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = read_text(fifo); });  // opening waits for the writer, not on a clock
    write_text(fifo, "through the pipe");
    reader.join();
    EXPECT_EQ(received, "through the pipe");
    EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(OutputFile, RefusesDirectoriesAndNamesTheOsError) {
    ScratchDir dir;
    expect_mentions(error_of([&] { OutputFile(dir.path().string()); }), {dir.path().string(), "is a directory"});
    expect_mentions(error_of([&] { OutputFile((dir / "no-such-dir" / "out").string()); }),
                    {"no-such-dir/out", "cannot create", "No such file or directory"});
    expect_mentions(error_of([&] { OutputFile((dir / "absent/").string()); }), {"absent/", "directory"});
}

TEST(OutputFile, RefusesToOverwriteItsInputByAnyPath) {
    ScratchDir dir;
    write_text(dir / "in", "input");
    fs::create_symlink(dir / "in", dir / "link");
    fs::create_hard_link(dir / "in", dir / "hard");
    const std::string in = (dir / "in").string();
    for (const fs::path& out : {dir / "in", dir / "link", dir / "hard", dir / "." / "in"})
        expect_mentions(error_of([&] { refuse_overwriting_input(in, out.string()); }),
                        {out.string(), "is the input file"});
    EXPECT_NO_THROW(refuse_overwriting_input(in, (dir / "other").string()));
    EXPECT_NO_THROW(refuse_overwriting_input((dir / "absent").string(), in));
}

}  // namespace
}  // namespace tessera
