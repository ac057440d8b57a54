// A command pool, its command buffers and a fence, for one submission at a
// time: the Vulkan backend's segments (which it may submit in parts,
// VulkanBackend::record_and_submit) and one-time transfers, and the
// benchmarks that record command buffers of their own.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "graph/vulkan/vk_api.hpp"
#include "graph/vulkan/vulkan_device.hpp"

namespace tessera {

struct Submitter {
    std::shared_ptr<VulkanDevice> device;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::vector<VkCommandBuffer> cbs;  // allocated as needed
    VkFence fence = VK_NULL_HANDLE;

    explicit Submitter(std::shared_ptr<VulkanDevice> d);
    ~Submitter();
    Submitter(const Submitter&) = delete;
    Submitter& operator=(const Submitter&) = delete;

    // Resets every command buffer (keeping their memory for the next recording).
    void reset();
    // Begins recording command buffer i.
    VkCommandBuffer begin(size_t i, bool one_time);
    static void end(VkCommandBuffer cb);
    // Submits command buffers [first, first + n); the last part of a
    // submission signals the fence that wait() waits for.
    void submit(size_t first, size_t n, bool last);
    void wait();
    // One command buffer, recorded once.
    VkCommandBuffer begin_one_time();
    void submit_and_wait();
};

}  // namespace tessera
