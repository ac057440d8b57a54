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

namespace tessera::vkk {

// The variant of skeleton `kind` for weights of `type`, e.g. "matvec_q4_0".
inline std::string weight_shader(std::string_view kind, GgmlType type) {
    std::string name = std::string(kind) + "_" + std::string(ggml_type_traits(type).name);
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

// Binds w so that its first byte is a whole number of blocks into the
// binding: bind() starts the binding at the aligned offset just below it, so
// a view at an offset that is not steps further back.
inline BoundTensor bind_blocks(Recorder& rec, const Tensor& w) {
    const uint32_t block = ggml_type_traits(w.type).block_bytes;
    const VkDeviceSize align = std::max<VkDeviceSize>(rec.device().limits().minStorageBufferOffsetAlignment, 4);
    BoundTensor b = rec.bind(w);
    for (uint32_t step = 0; b.shift % block != 0; ++step) {
        if (step == block || b.offset < align)
            throw VulkanError("weight " + describe(w) + " is not at a whole number of blocks from an aligned offset");
        b.offset -= align;
        b.shift += uint32_t(align);
        b.range += align;
    }
    return b;
}

}  // namespace tessera::vkk
