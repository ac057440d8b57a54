#include "graph/vulkan/kernels/registry.hpp"

namespace tessera {

const VulkanKernel* find_vulkan_kernel(std::string_view op) {
    using namespace vkk;
    static const VulkanKernel* const kAll[] = {&kAdd,     &kMul,  &kSwiglu,  &kScale, &kSilu,    &kTransfer,
                                               &kRmsNorm, &kRope, &kSoftmax, &kCopy,  &kSetRows, &kAttention,
                                               &kMatmul,  &kGetRows};
    for (const VulkanKernel* k : kAll)
        if (k->op == op) return k;
    return nullptr;
}

}  // namespace tessera
