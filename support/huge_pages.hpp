// Anonymous memory on transparent huge pages (2 MiB) where the kernel gives
// them. The CPU's matvecs read 8 rows of weights at once (4 per thread): on
// 4 KiB pages each row stream crossed a page, with a TLB miss and the end of
// the hardware prefetch, every few KiB; 2 MiB pages spare them that
// (docs/measured-choices.md#huge-pages).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace tessera {

struct HugePagesRelease {
    size_t bytes = 0;
    void operator()(uint8_t* p) const;
};
using HugePageBuffer = std::unique_ptr<uint8_t, HugePagesRelease>;

// At least `bytes` of zeroed memory, 2 MiB-aligned, advised for huge pages
// (regular pages where the system has none); throws Error naming the size
// when there is no room.
HugePageBuffer allocate_huge_pages(size_t bytes);

// Whether a private copy of `bytes` leaves the system room: at most half of
// its physical memory, so that a model near the memory's size is read from
// its mapping (paged from the file) instead of being swapped out.
bool huge_page_copy_fits(size_t bytes);

}  // namespace tessera
