// A Vulkan kernel for one op: which nodes it handles and how it records
// them. Each op's kernel lives in one file here, named like the op, and
// registers itself keyed by the op's OpDef (graph/kernel_registry.hpp); its
// shaders are in shaders/.
#pragma once

#include "graph/kernel_registry.hpp"
#include "graph/tensor.hpp"

namespace tessera {

class Recorder;

struct VulkanKernel {
    const OpDef* op = nullptr;
    // Whether this build and kernel handle the node's types and shapes.
    bool (*supports)(const Tensor& node) = nullptr;
    void (*record)(const Tensor& node, Recorder& rec) = nullptr;
    // The input the kernel reads through an fp16 copy when it records the
    // node (the tensor-core matmul's x), or nullptr: the backend asks before
    // recording, so that the input's kernel writes the copy as it stores it
    // (Recorder::want_half_copy).
    const Tensor* (*half_input)(const Tensor& node, Recorder& rec) = nullptr;
};

}  // namespace tessera
