#include "graph/vulkan/memory_pool.hpp"

#include <algorithm>

#include "graph/vulkan/vulkan_device.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera {

namespace {

constexpr VkDeviceSize kBlockBytes = VkDeviceSize(256) << 20;
// Every allocation starts at a multiple of this (>= any device's
// minStorageBufferOffsetAlignment, and a cache line).
constexpr VkDeviceSize kAlignment = 256;

VkDeviceSize align_up(VkDeviceSize x, VkDeviceSize a) { return (x + a - 1) / a * a; }

std::string mib(VkDeviceSize bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

}  // namespace

MemoryPool::MemoryPool(VulkanDevice& device) : device_(device) {}

MemoryPool::~MemoryPool() {
    for (Block& b : blocks_) {
        vk::vkDestroyBuffer(device_.device(), b.buffer, nullptr);
        vk::vkFreeMemory(device_.device(), b.memory, nullptr);
    }
}

uint32_t MemoryPool::memory_type(MemoryKind kind, uint32_t allowed) const {
    const auto& mem = device_.memory_properties();
    // Preferred property sets, best first.
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const std::vector<VkMemoryPropertyFlags> wanted =
        kind == MemoryKind::Device
            ? std::vector<VkMemoryPropertyFlags>{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0}
            : std::vector<VkMemoryPropertyFlags>{host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, host};
    for (VkMemoryPropertyFlags w : wanted)
        for (uint32_t t = 0; t < mem.memoryTypeCount; ++t)
            if ((allowed & (1u << t)) && (mem.memoryTypes[t].propertyFlags & w) == w) return t;
    throw VulkanUnavailable("the Vulkan device has no suitable memory type");
}

int MemoryPool::new_block(VkDeviceSize bytes, MemoryKind kind) {
    const VkDeviceSize max_alloc = device_.limits().maxStorageBufferRange;  // a bound tensor must fit one binding
    Block b;
    b.kind = kind;
    b.size = align_up(std::max(bytes, std::min(kBlockBytes, VkDeviceSize(max_alloc))), kAlignment);
    VkBufferCreateInfo info{.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = b.size,
                            .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    vk::check(vk::vkCreateBuffer(device_.device(), &info, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vk::vkGetBufferMemoryRequirements(device_.device(), b.buffer, &req);
    VkMemoryAllocateInfo alloc{.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = memory_type(kind, req.memoryTypeBits)};
    const VkResult r = vk::vkAllocateMemory(device_.device(), &alloc, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
        vk::vkDestroyBuffer(device_.device(), b.buffer, nullptr);
        throw VulkanOutOfMemory("the Vulkan device cannot allocate " + mib(req.size) + " of " +
                                (kind == MemoryKind::Device ? "device" : "host-visible") + " memory (" +
                                vk::result_name(r) + "; " + mib(reserved_bytes(MemoryKind::Device)) +
                                " device memory in use)");
    }
    vk::check(vk::vkBindBufferMemory(device_.device(), b.buffer, b.memory, 0), "vkBindBufferMemory");
    if (kind == MemoryKind::Host) {
        void* p = nullptr;
        vk::check(vk::vkMapMemory(device_.device(), b.memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        b.mapped = static_cast<char*>(p);
    }
    b.free[0] = b.size;
    blocks_.push_back(std::move(b));
    return int(blocks_.size() - 1);
}

DeviceAllocation MemoryPool::allocate(VkDeviceSize bytes, MemoryKind kind) {
    std::lock_guard lock(mutex_);
    const VkDeviceSize size = align_up(std::max<VkDeviceSize>(bytes, 1), kAlignment);
    if (size > device_.limits().maxStorageBufferRange)
        throw VulkanOutOfMemory("a tensor of " + mib(size) + " exceeds the Vulkan device's largest buffer binding (" +
                                mib(device_.limits().maxStorageBufferRange) + ")");
    auto take = [&](int bi) -> DeviceAllocation {
        Block& b = blocks_[size_t(bi)];
        for (auto it = b.free.begin(); it != b.free.end(); ++it) {
            if (it->second < size) continue;
            const VkDeviceSize offset = it->first, left = it->second - size;
            b.free.erase(it);
            if (left > 0) b.free[offset + size] = left;
            return {.buffer = b.buffer, .offset = offset, .size = size, .mapped = b.mapped ? b.mapped + offset : nullptr,
                    .block = bi};
        }
        return {};
    };
    for (size_t bi = 0; bi < blocks_.size(); ++bi)
        if (blocks_[bi].kind == kind)
            if (DeviceAllocation a = take(int(bi))) return a;
    return take(new_block(size, kind));
}

void MemoryPool::release(const DeviceAllocation& a) {
    if (!a) return;
    std::lock_guard lock(mutex_);
    auto& free = blocks_[size_t(a.block)].free;
    auto [it, inserted] = free.emplace(a.offset, a.size);
    // Merge with the following and the preceding free range.
    if (auto next = std::next(it); next != free.end() && it->first + it->second == next->first) {
        it->second += next->second;
        free.erase(next);
    }
    if (it != free.begin()) {
        auto prev = std::prev(it);
        if (prev->first + prev->second == it->first) {
            prev->second += it->second;
            free.erase(it);
        }
    }
}

VkDeviceSize MemoryPool::reserved_bytes(MemoryKind kind) const {
    VkDeviceSize total = 0;
    for (const Block& b : blocks_)
        if (b.kind == kind) total += b.size;
    return total;
}

}  // namespace tessera
