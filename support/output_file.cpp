#include "support/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <utility>

#include "support/error.hpp"

namespace tessera {

namespace {

// The process's umask, read without changing it (umask(2) can only swap it,
// which would race with other threads creating files).
mode_t current_umask() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.starts_with("Umask:")) return mode_t(std::strtoul(line.c_str() + 6, nullptr, 8));
    return 022;
}

std::string directory_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
    if (path_.empty()) throw Error("the output path is empty");
    struct stat st {};
    if (::lstat(path_.c_str(), &st) != 0) {
        if (errno != ENOENT) fail("cannot inspect the output path", errno);
        if (path_.ends_with('/')) throw Error(path_ + ": names a directory, not a file");
        open_replacement(path_, 0666 & ~current_umask());
        return;
    }
    const bool link = S_ISLNK(st.st_mode);
    if (link && ::stat(path_.c_str(), &st) != 0) fail("is a symbolic link whose target cannot be reached", errno);
    if (S_ISREG(st.st_mode)) {
        std::string target = path_;
        if (link) {
            const std::unique_ptr<char, decltype(&std::free)> real(::realpath(path_.c_str(), nullptr), &std::free);
            if (!real) fail("cannot resolve the symbolic link", errno);
            target = real.get();
        }
        open_replacement(target, st.st_mode & 0777);
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        open_in_place();
    } else {
        throw Error(path_ + (S_ISDIR(st.st_mode) ? ": is a directory"
                                                 : ": is neither a regular file, a character device nor a FIFO") +
                    "; nothing was written");
    }
}

// A temporary file beside `target`, renamed over it by commit().
void OutputFile::open_replacement(const std::string& target, unsigned mode) {
    std::string name = directory_of(target) + "/." + base_name(target) + ".XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail("cannot create a temporary file in " + directory_of(target), errno);
    tmp_path_ = std::move(name);
    target_ = target;
    if (::fchmod(fd_, mode_t(mode)) != 0) {
        const int err = errno;
        ::close(std::exchange(fd_, -1));
        ::unlink(tmp_path_.c_str());
        fail("cannot set the permissions of " + tmp_path_, err);
    }
}

// A device or FIFO, written where it is.
void OutputFile::open_in_place() {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) fail("cannot open for writing", errno);
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
        ::close(std::exchange(fd_, -1));
        throw Error(path_ + ": changed from a device or FIFO while it was opened; nothing was written");
    }
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) {
        ::close(fd_);
        if (!tmp_path_.empty()) ::unlink(tmp_path_.c_str());
    }
}

void OutputFile::fail(const std::string& what, int err) const {
    throw Error(path_ + ": " + what + ": " + std::strerror(err));
}

void OutputFile::write(std::span<const uint8_t> bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("write failed at offset " + std::to_string(size_), errno);
        }
        bytes = bytes.subspan(size_t(n));
        size_ += uint64_t(n);
    }
}

void OutputFile::write_zeros(uint64_t count) {
    static constexpr std::array<uint8_t, 4096> kZeros{};
    while (count > 0) {
        const size_t n = size_t(std::min<uint64_t>(count, kZeros.size()));
        write(std::span(kZeros).first(n));
        count -= n;
    }
}

// No fsync: the rename makes the replacement atomic for readers; durability
// across a power loss is not promised.
void OutputFile::commit() {
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0) {
        const int err = errno;
        if (!tmp_path_.empty()) ::unlink(tmp_path_.c_str());
        fail("close failed", err);
    }
    if (target_.empty()) return;
    if (std::rename(tmp_path_.c_str(), target_.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp_path_.c_str());
        fail("cannot rename the temporary file " + tmp_path_ + " to " + target_, err);
    }
}

void refuse_overwriting_input(const std::string& input, const std::string& output) {
    struct stat in {}, out {};
    if (::stat(input.c_str(), &in) != 0 || ::stat(output.c_str(), &out) != 0) return;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
        throw Error(output + ": is the input file " + input + " (the same file); write the output to another path");
}

}  // namespace tessera
