// Suballocates device memory: large blocks (one VkDeviceMemory and one
// VkBuffer each) are carved into allocations first-fit, so tensors, arenas
// and weights never cost a vkAllocateMemory each.
//   Device  device-local: weights, activations, the KV cache
//   Host    host-visible and coherent, mapped: inputs and outputs the host
//           writes or reads directly, staging for uploads and downloads
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "graph/vulkan/vk_api.hpp"

namespace tessera {

class VulkanDevice;

enum class MemoryKind : uint8_t { Device, Host };

struct DeviceAllocation {
    VkBuffer buffer = VK_NULL_HANDLE;  // the block's buffer
    VkDeviceSize offset = 0;           // within the buffer
    VkDeviceSize size = 0;
    char* mapped = nullptr;  // Host memory: the host address of offset 0
    int block = -1;
    explicit operator bool() const { return block >= 0; }
};

class MemoryPool {
public:
    explicit MemoryPool(VulkanDevice& device);
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    // Throws VulkanOutOfMemory naming the size when the device has no room.
    DeviceAllocation allocate(VkDeviceSize bytes, MemoryKind kind);
    void release(const DeviceAllocation& a);
    VkDeviceSize reserved_bytes(MemoryKind kind) const;  // in blocks

private:
    struct Block {
        VkDeviceMemory memory = VK_NULL_HANDLE;
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceSize size = 0;
        MemoryKind kind = MemoryKind::Device;
        char* mapped = nullptr;
        std::map<VkDeviceSize, VkDeviceSize> free;  // offset -> size
    };
    int new_block(VkDeviceSize bytes, MemoryKind kind);
    uint32_t memory_type(MemoryKind kind, uint32_t allowed) const;

    VulkanDevice& device_;
    std::vector<Block> blocks_;
    mutable std::mutex mutex_;
};

}  // namespace tessera
