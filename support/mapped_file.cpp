#include "support/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "support/error.hpp"

namespace tessera {

namespace {

// Closes the descriptor when the constructor returns or throws.
struct FileDescriptor {
    int fd;
    ~FileDescriptor() { ::close(fd); }
};

// Reads all `size` bytes of fd into dst.
void read_all(int fd, uint8_t* dst, size_t size, const std::string& path) {
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::pread(fd, dst + done, size - done, off_t(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw Error(path + ": cannot read: " + (n < 0 ? std::strerror(errno) : "file shrank while read"));
        done += size_t(n);
    }
}

// What a file that is not a regular file is, for messages.
const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

}  // namespace

MappedFile::MappedFile(const std::string& path, FileMemory memory) : path_(path) {
    // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before the
    // type check below could refuse it. It does not affect reading a regular file.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) throw Error(path + ": cannot open: " + std::strerror(errno));
    const FileDescriptor closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw Error(path + ": cannot stat: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": is " + kind_of(st.st_mode) + ", not a regular file");
    size_ = size_t(st.st_size);
    if (size_ > 0 && memory == FileMemory::HugePageCopy && huge_page_copy_fits(size_)) {
        try {
            copy_ = allocate_huge_pages(size_);
        } catch (const Error&) {  // no room after all: the mapping below
        }
    }
    if (copy_) {
        read_all(fd, copy_.get(), size_, path);
        data_ = copy_.get();
    } else if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) throw Error(path + ": cannot map: " + std::strerror(errno));
        data_ = static_cast<const uint8_t*>(p);
    }
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      copy_(std::move(other.copy_)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        release();
        path_ = std::move(other.path_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        copy_ = std::move(other.copy_);
    }
    return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() {
    if (copy_)
        copy_.reset();
    else if (data_)
        ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = nullptr;
    size_ = 0;
}

}  // namespace tessera
