// The kernels each file of graph/vulkan/kernels/ defines; registry.cpp lists them.
#pragma once

#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

extern const VulkanKernel kAdd, kMul, kSwiglu, kScale, kSilu;  // elementwise.cpp
void record_add_in_place(const Tensor& y, const Tensor& addend, Recorder& rec);  // y += addend (repeated over y)
extern const VulkanKernel kTransfer;                            // transfer.cpp
extern const VulkanKernel kRmsNorm;                             // norm.cpp
extern const VulkanKernel kRope;                                // rope.cpp
extern const VulkanKernel kSoftmax;                             // softmax.cpp
extern const VulkanKernel kCopy, kSetRows;                      // copy.cpp
extern const VulkanKernel kAttention;                           // attention.cpp
extern const VulkanKernel kMatmul;                              // matmul.cpp
extern const VulkanKernel kGetRows;                             // get_rows.cpp

}  // namespace tessera::vkk
