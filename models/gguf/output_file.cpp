#include "models/gguf/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "support/error.hpp"

namespace tessera::gguf {

OutputFile::OutputFile(std::string path) : path_(std::move(path)), tmp_path_(path_ + ".tmp") {
    fd_ = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) fail("cannot create", errno);
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) {
        ::close(fd_);
        ::unlink(tmp_path_.c_str());
    }
}

void OutputFile::fail(const std::string& what, int err) const {
    throw Error(tmp_path_ + ": " + what + ": " + std::strerror(err));
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
        ::unlink(tmp_path_.c_str());
        fail("close failed", err);
    }
    if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp_path_.c_str());
        throw Error(tmp_path_ + ": cannot rename to " + path_ + ": " + std::strerror(err));
    }
}

}  // namespace tessera::gguf
