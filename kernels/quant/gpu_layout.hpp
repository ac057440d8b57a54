// A tensor's blocks in the Vulkan backend's layout (QuantTypeEntry::gpu_groups,
// quant_type.hpp): groups of group_blocks blocks, each group the blocks'
// planes (bytes [plane_offset, plane_offset + plane_bytes) of each, in block
// order), then the rest of each block in block order. The last group is
// padded with zero blocks, so that a shader finds block b's parts from b
// alone. A group is as many bytes as its blocks, so a view that starts at a
// whole group starts at the same byte offset in both layouts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/quant/registry.hpp"

namespace tessera {

// Blocks per group of the type's GPU layout: 1 (blocks as on disk) for a type
// without GpuGroups or one this build left out.
uint32_t gpu_group_blocks(GgmlType type);

// Bytes of one group of the type's GPU layout.
size_t gpu_group_bytes(const QuantTypeEntry& type);

// Bytes of `bytes` of blocks of the type in the GPU layout (padded to whole groups).
size_t gpu_layout_bytes(const QuantTypeEntry& type, size_t bytes);

// Writes the gpu_layout_bytes(type, bytes) bytes of the GPU layout of `bytes`
// of blocks at src (whole blocks) to dst.
void to_gpu_layout(const QuantTypeEntry& type, const void* src, size_t bytes, void* dst);

}  // namespace tessera
