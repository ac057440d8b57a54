// The Vulkan kernels, keyed by op name (OpDef::name): which nodes each one
// handles and how it records them. Each op's kernel lives in one file here,
// next to nothing else; its shaders are in shaders/.
#pragma once

#include <string_view>

#include "graph/tensor.hpp"

namespace tessera {

class Recorder;

struct VulkanKernel {
    std::string_view op;
    // Whether this build and kernel handle the node's types and shapes.
    bool (*supports)(const Tensor& node);
    void (*record)(const Tensor& node, Recorder& rec);
    // The input the kernel reads through an fp16 copy when it records the
    // node (the tensor-core matmul's x), or nullptr: the backend asks before
    // recording, so that the input's kernel writes the copy as it stores it
    // (Recorder::want_half_copy).
    const Tensor* (*half_input)(const Tensor& node, Recorder& rec) = nullptr;
};

// nullptr when no Vulkan kernel implements the op.
const VulkanKernel* find_vulkan_kernel(std::string_view op);

}  // namespace tessera
