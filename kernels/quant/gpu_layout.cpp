#include "kernels/quant/gpu_layout.hpp"

#include <cstring>

namespace tessera {

uint32_t gpu_group_blocks(GgmlType type) {
    const QuantTypeEntry* entry = find_quant_type(type);
    return entry ? entry->gpu_groups.group_blocks : 1;
}

size_t gpu_group_bytes(const QuantTypeEntry& type) {
    return size_t(type.gpu_groups.group_blocks) * type.traits.block_bytes;
}

size_t gpu_layout_bytes(const QuantTypeEntry& type, size_t bytes) {
    const size_t group = gpu_group_bytes(type);
    return (bytes + group - 1) / group * group;
}

void to_gpu_layout(const QuantTypeEntry& type, const void* src, size_t bytes, void* dst) {
    const auto [n, offset, plane] = type.gpu_groups;
    const size_t block = type.traits.block_bytes, rest = block - plane, blocks = bytes / block;
    const auto* in = static_cast<const uint8_t*>(src);
    auto* out = static_cast<uint8_t*>(dst);
    std::memset(out, 0, gpu_layout_bytes(type, bytes));
    for (size_t b = 0; b < blocks; ++b) {
        const uint8_t* from = in + b * block;
        uint8_t* group = out + b / n * n * block;
        const size_t slot = b % n;
        std::memcpy(group + slot * plane, from + offset, plane);
        uint8_t* other = group + n * plane + slot * rest;  // the bytes before and after the plane
        std::memcpy(other, from, offset);
        std::memcpy(other + offset, from + offset + plane, block - offset - plane);
    }
}

}  // namespace tessera
