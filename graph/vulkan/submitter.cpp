#include "graph/vulkan/submitter.hpp"

#include <chrono>
#include <mutex>
#include <utility>

#include "graph/vulkan/vulkan_error.hpp"

namespace tessera {

namespace {

constexpr std::chrono::milliseconds kSpinWait{5};

}  // namespace

Submitter::Submitter(std::shared_ptr<VulkanDevice> d) : device(std::move(d)) {
    VkDevice dev = device->device();
    VkCommandPoolCreateInfo pool_info{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                      .queueFamilyIndex = device->queue_family()};
    vk::check(vk::vkCreateCommandPool(dev, &pool_info, nullptr, &pool), "vkCreateCommandPool");
    VkFenceCreateInfo fence_info{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    vk::check(vk::vkCreateFence(dev, &fence_info, nullptr, &fence), "vkCreateFence");
}

Submitter::~Submitter() {
    vk::vkDestroyFence(device->device(), fence, nullptr);
    vk::vkDestroyCommandPool(device->device(), pool, nullptr);
}

void Submitter::reset() { vk::check(vk::vkResetCommandPool(device->device(), pool, 0), "vkResetCommandPool"); }

VkCommandBuffer Submitter::begin(size_t i, bool one_time) {
    while (cbs.size() <= i) {
        VkCommandBufferAllocateInfo alloc{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        vk::check(vk::vkAllocateCommandBuffers(device->device(), &alloc, &cbs.emplace_back()),
                  "vkAllocateCommandBuffers");
    }
    VkCommandBufferBeginInfo info{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                  .flags = one_time ? VkCommandBufferUsageFlags(VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT) : 0u};
    vk::check(vk::vkBeginCommandBuffer(cbs[i], &info), "vkBeginCommandBuffer");
    return cbs[i];
}

void Submitter::end(VkCommandBuffer cb) { vk::check(vk::vkEndCommandBuffer(cb), "vkEndCommandBuffer"); }

void Submitter::submit(size_t first, size_t n, bool last) {
    VkSubmitInfo submit{.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                        .commandBufferCount = uint32_t(n),
                        .pCommandBuffers = cbs.data() + first};
    std::lock_guard lock(device->queue_mutex());
    vk::check(vk::vkQueueSubmit(device->queue(), 1, &submit, last ? fence : VK_NULL_HANDLE), "vkQueueSubmit");
}

void Submitter::wait() {
    // On a GPU, poll for up to kSpinWait before blocking: a blocking wait
    // makes each submission slower (docs/measured-choices.md#waiting-for-a-submission).
    // A CPU device needs the cores for its shaders.
    if (!device->info().on_host_cpu) {
        const auto until = std::chrono::steady_clock::now() + kSpinWait;
        while (vk::vkGetFenceStatus(device->device(), fence) == VK_NOT_READY &&
               std::chrono::steady_clock::now() < until) {
        }
    }
    vk::check(vk::vkWaitForFences(device->device(), 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    vk::check(vk::vkResetFences(device->device(), 1, &fence), "vkResetFences");
}

VkCommandBuffer Submitter::begin_one_time() {
    reset();
    return begin(0, true);
}

void Submitter::submit_and_wait() {
    submit(0, 1, true);
    wait();
}

}  // namespace tessera
