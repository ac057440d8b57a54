// A file written next to its destination (path + ".tmp") and renamed over it
// on commit(), so readers never see a half-written file. Dropped without
// commit() (an error, an exception), the temporary file is removed.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tessera::gguf {

class OutputFile {
public:
    explicit OutputFile(std::string path);  // throws Error naming the path and the OS error
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    ~OutputFile();

    void write(std::span<const uint8_t> bytes);
    void write_zeros(uint64_t count);
    uint64_t size() const { return size_; }
    void commit();

private:
    [[noreturn]] void fail(const std::string& what, int err) const;
    std::string path_;
    std::string tmp_path_;
    int fd_ = -1;
    uint64_t size_ = 0;
};

}  // namespace tessera::gguf
