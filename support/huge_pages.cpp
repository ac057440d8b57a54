#include "support/huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "support/error.hpp"

namespace tessera {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;

}  // namespace

void HugePagesRelease::operator()(uint8_t* p) const {
    if (p != nullptr) ::munmap(p, bytes);
}

HugePageBuffer allocate_huge_pages(size_t bytes) {
    const size_t size = (std::max<size_t>(bytes, 1) + kHugePage - 1) / kHugePage * kHugePage;
    // Map a huge page more and trim both ends to an aligned start.
    void* raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        throw Error("cannot allocate " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    const uintptr_t base = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t start = (base + kHugePage - 1) / kHugePage * kHugePage;
    if (start > base) ::munmap(raw, start - base);
    if (const size_t tail = base + size + kHugePage - (start + size); tail > 0)
        ::munmap(reinterpret_cast<void*>(start + size), tail);
    ::madvise(reinterpret_cast<void*>(start), size, MADV_HUGEPAGE);  // advice: failure leaves regular pages
    return HugePageBuffer(reinterpret_cast<uint8_t*>(start), HugePagesRelease{size});
}

bool huge_page_copy_fits(size_t bytes) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 && bytes <= size_t(pages) / 2 * size_t(page);
}

}  // namespace tessera
