// Writing an output file without harming what its path names or what lies
// beside it. What the path is decides how it is written:
//  - absent or a regular file: a temporary file made by mkstemp (a random
//    name, created exclusively, so nothing planted at a guessable name is
//    followed) in the same directory, renamed over the path by commit():
//    readers never see a half-written file. A file replaced keeps its
//    permission bits; a new one gets 0666 less the umask.
//  - a symbolic link: followed. Its target is written as above (replaced when
//    a regular file, written through when a device or FIFO); the link stays.
//    A link whose target does not exist (or a loop) is refused.
//  - a character device or a FIFO (/dev/null, a named pipe): written through
//    in place, never replaced.
//  - a directory, a block device, a socket: refused.
// Dropped without commit() (an error, an exception), the temporary file is
// removed. Every failure throws an Error naming the path and the OS error.
// refuse_overwriting_input checks, before any work, that an output is not the
// input it is made from.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tessera {

class OutputFile {
public:
    explicit OutputFile(std::string path);
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    void write(std::span<const uint8_t> bytes);
    // Floats as they lie in memory (little-endian on the hosts tessera builds for).
    void write(std::span<const float> values) {
        write(std::span(reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()));
    }
    void write_zeros(uint64_t count);
    uint64_t size() const { return size_; }
    void commit();

private:
    [[noreturn]] void fail(const std::string& what, int err) const;
    void open_replacement(const std::string& target, unsigned mode);
    void open_in_place();

    std::string path_;    // as given, for messages
    std::string target_;  // renamed over on commit(); empty when written in place
    std::string tmp_path_;
    int fd_ = -1;
    uint64_t size_ = 0;
};

// Throws an Error when `output` is the file `input` (the same device and
// inode, by any path or link). Nothing to check when either does not exist.
void refuse_overwriting_input(const std::string& input, const std::string& output);

}  // namespace tessera
