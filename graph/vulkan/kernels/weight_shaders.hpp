// What the kernels of weight-type shaders (shaders/quant/: matmul, get_rows)
// share: the variant's name and the weight bound as an array of blocks.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph/vulkan/vulkan_error.hpp"
#include "kernels/quant/gpu_layout.hpp"

namespace tessera::vkk {

// The variant of skeleton `kind` for weights of `type`, e.g. "matvec_q4_0".
inline std::string weight_shader(std::string_view kind, GgmlType type) {
    std::string name = std::string(kind) + "_" + std::string(ggml_type_traits(type).name);
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

// Whether w's bytes on the device are in the layout its type's shaders read:
// only weights are regrouped (at upload), so a regrouped type's tensor that
// is no weight (an external buffer, a computed tensor) has no such layout.
inline bool in_gpu_layout(const Tensor& w) {
    return gpu_group_blocks(w.type) == 1 || w.storage_root()->leaf == LeafKind::Weight;
}

// Binds weight w so that its first block is first(block_bytes) blocks into
// the binding. bind() starts the binding at the aligned offset just below w,
// so a view at an offset that is not a whole number of blocks from it steps
// further back. A regrouped type (kernels/quant/gpu_layout.hpp) is bound from
// the start of the group that holds w's first block, to the end of the group
// that holds its last: shift then counts bytes to that group plus whole
// blocks within it, so that first() is still w's first block.
inline BoundTensor bind_blocks(Recorder& rec, const Tensor& w) {
    const uint32_t block = ggml_type_traits(w.type).block_bytes;
    const uint32_t group_blocks = gpu_group_blocks(w.type), unit = block * group_blocks;
    const VkDeviceSize align = rec.binding_alignment();
    BoundTensor b = rec.bind(w);
    // Where the unit holding w's first block starts on the device, and w's blocks after that start.
    const size_t first_block = size_t(static_cast<const uint8_t*>(w.data) -
                                      static_cast<const uint8_t*>(w.storage_root()->data)) / block;
    const size_t skipped = first_block % group_blocks;
    const VkDeviceSize start = b.offset + b.shift - skipped * block;  // in both layouts: units are whole
    b.offset = start / align * align;
    for (uint32_t step = 0; (start - b.offset) % unit != 0; ++step) {
        if (step == unit || b.offset < align)
            throw VulkanError("weight " + describe(w) + " is not at a whole number of blocks from an aligned offset");
        b.offset -= align;
    }
    const size_t units = (skipped * block + w.nbytes() + unit - 1) / unit;
    b.shift = uint32_t(start - b.offset + skipped * block);
    b.range = std::max<VkDeviceSize>(b.range, (start - b.offset + units * unit + 3) / 4 * 4);
    return b;
}

}  // namespace tessera::vkk
