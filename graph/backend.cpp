#include "graph/backend.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace tessera {

std::shared_ptr<void> Backend::allocate(size_t bytes) {
    const size_t size = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, size == 0 ? 64 : size);
    if (p == nullptr) throw std::bad_alloc();
    std::memset(p, 0, size == 0 ? 64 : size);
    return {p, std::free};
}

void Backend::copy_to_host(const void* data, size_t bytes, void* dst) const { std::memcpy(dst, data, bytes); }

}  // namespace tessera
