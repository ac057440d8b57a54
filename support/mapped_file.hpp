// A whole file's bytes in memory, read-only: the file's own pages mapped
// (zero-copy, shared with the page cache), or a private copy on transparent
// huge pages (support/huge_pages.hpp), which the CPU's matvecs read faster.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "support/huge_pages.hpp"

namespace tessera {

enum class FileMemory : uint8_t { Mapped, HugePageCopy };

class MappedFile {
public:
    MappedFile() = default;
    // Throws Error naming the path and the OS error.
    explicit MappedFile(const std::string& path, FileMemory memory = FileMemory::Mapped);
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    ~MappedFile();

    std::span<const uint8_t> bytes() const { return {data_, size_}; }
    // Whether the bytes are a private huge-page copy: FileMemory::HugePageCopy
    // maps the file instead where the copy would not fit
    // (huge_page_copy_fits) or cannot be allocated.
    bool is_copy() const { return bool(copy_); }
    const std::string& path() const { return path_; }

private:
    void release();
    std::string path_;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    HugePageBuffer copy_;  // holds data_ for FileMemory::HugePageCopy
};

}  // namespace tessera
