#include "bench/vulkan_overlap_chain.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

#include "graph/vulkan/pipeline_cache.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera::bench {

namespace {

constexpr uint32_t kGroupOnGpu = 256;

constexpr std::array kModes{ChainMode::Barriers, ChainMode::Overlap, ChainMode::Persistent};

const char* shader_of(ChainMode mode) {
    switch (mode) {
        case ChainMode::Barriers: return "matvec_chain";
        case ChainMode::Overlap: return "matvec_chain_overlap";
        case ChainMode::Persistent: return "matvec_chain_persistent";
    }
    return nullptr;
}

VkDescriptorBufferInfo whole(const DeviceAllocation& a) { return {a.buffer, a.offset, a.size}; }

// Binds the pipeline and its buffers, binding i to buffers[i].
void bind(VkCommandBuffer cb, const Pipeline& p, const std::array<VkDescriptorBufferInfo, 4>& buffers) {
    vk::vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    std::array<VkWriteDescriptorSet, 4> sets{};
    for (uint32_t i = 0; i < p.n_bindings; ++i)
        sets[i] = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                   .dstBinding = i,
                   .descriptorCount = 1,
                   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                   .pBufferInfo = &buffers[i]};
    vk::vkCmdPushDescriptorSetKHR(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, p.n_bindings, sets.data());
}

void memory_barrier(VkCommandBuffer cb, VkPipelineStageFlags from, VkAccessFlags written, VkPipelineStageFlags to,
                    VkAccessFlags then) {
    const VkMemoryBarrier mb{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = written, .dstAccessMask = then};
    vk::vkCmdPipelineBarrier(cb, from, to, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace

int64_t MatvecChain::dim_multiple(const VulkanDevice& device, uint32_t rows_per_group) {
    return std::lcm(int64_t(8) * device.strided_group_size(kGroupOnGpu), int64_t(rows_per_group));
}

MatvecChain::MatvecChain(std::shared_ptr<VulkanDevice> device, int64_t dim, int64_t levels, uint32_t rows_per_group,
                         uint32_t persistent_groups, const std::vector<std::vector<uint16_t>>& matrices,
                         const std::array<std::vector<float>, 2>& inputs)
    : device_(std::move(device)),
      dim_(dim),
      levels_(levels),
      rows_(rows_per_group),
      group_size_(device_->strided_group_size(kGroupOnGpu)),
      persistent_groups_(persistent_groups),
      runs_(device_),
      transfers_(device_) {
    if (dim <= 0 || dim % dim_multiple(*device_, rows_per_group) != 0 || rows_per_group > group_size_)
        throw VulkanUnavailable("dim " + std::to_string(dim) + " is not a multiple of " +
                                std::to_string(dim_multiple(*device_, rows_per_group)) + " on this device");
    levels_per_binding_ =
        std::max<int64_t>(1, int64_t(device_->limits().maxStorageBufferRange / weight_bytes_per_level()));
    if (persistent_groups > 0 && levels > levels_per_binding_)
        throw VulkanUnavailable("a persistent run binds every level's weights, and this device's binding takes " +
                                std::to_string(levels_per_binding_) + " levels, not " + std::to_string(levels));
    const VkDeviceSize matrix_bytes = weight_bytes_per_level();
    MemoryPool& memory = device_->memory();
    for (int64_t l = 0; l < levels; l += levels_per_binding_)
        weights_.push_back(memory.allocate(matrix_bytes * VkDeviceSize(std::min(levels_per_binding_, levels - l)),
                                           MemoryKind::Device));
    const VkDeviceSize vectors_bytes = slot_bytes() * VkDeviceSize(2 + levels);
    const VkDeviceSize counters_bytes = VkDeviceSize(levels + 1) * 4;
    for (ModeState& m : modes_) {
        m.vectors = memory.allocate(vectors_bytes, MemoryKind::Device);
        m.counters = memory.allocate(counters_bytes, MemoryKind::Device);
    }
    staging_ = memory.allocate(std::max(matrix_bytes, vectors_bytes), MemoryKind::Host);

    for (size_t c = 0; c < matrices.size(); ++c) {
        std::memcpy(staging_.mapped, matrices[c].data(), matrix_bytes);
        VkCommandBuffer cb = begin_transfer();
        for (int64_t l = int64_t(c); l < levels; l += int64_t(matrices.size())) {
            const VkDescriptorBufferInfo to = level_weights(l);
            const VkBufferCopy region{staging_.offset, to.offset, to.range};
            vk::vkCmdCopyBuffer(cb, staging_.buffer, to.buffer, 1, &region);
        }
        finish_transfer(cb);
    }
    // Both inputs, every level's output zeroed (a level that read its input
    // too early would find zeros, not an earlier run's values), the counters zeroed.
    std::memset(staging_.mapped, 0, staging_.size);
    for (int i = 0; i < 2; ++i) std::memcpy(staging_.mapped + slot_bytes() * VkDeviceSize(i), inputs[size_t(i)].data(), size_t(dim) * 4);
    VkCommandBuffer cb = begin_transfer();
    for (const ModeState& m : modes_) {
        const VkBufferCopy region{staging_.offset, m.vectors.offset, vectors_bytes};
        vk::vkCmdCopyBuffer(cb, staging_.buffer, m.vectors.buffer, 1, &region);
        const VkBufferCopy zeros{staging_.offset + slot_bytes() * 2, m.counters.offset, counters_bytes};  // outputs' zeros
        vk::vkCmdCopyBuffer(cb, staging_.buffer, m.counters.buffer, 1, &zeros);
    }
    finish_transfer(cb);

    for (ChainMode mode : kModes)
        for (int input = 0; input < 2 && (mode != ChainMode::Persistent || persistent_groups > 0); ++input)
            record(mode, input);
}

MatvecChain::~MatvecChain() {
    vk::vkDeviceWaitIdle(device_->device());
    MemoryPool& memory = device_->memory();
    for (const DeviceAllocation& a : weights_) memory.release(a);
    for (const ModeState& m : modes_) {
        memory.release(m.vectors);
        memory.release(m.counters);
    }
    memory.release(staging_);
}

// A vector's slot: the device's storage-buffer offsets must be aligned. A
// multiple of 16 bytes (dim is of 8), as the persistent shader reads slots as vec4s.
VkDeviceSize MatvecChain::slot_bytes() const {
    const VkDeviceSize a = std::max<VkDeviceSize>(device_->limits().minStorageBufferOffsetAlignment, 4);
    return (VkDeviceSize(dim_) * 4 + a - 1) / a * a;
}

VkDescriptorBufferInfo MatvecChain::level_weights(int64_t level) const {
    const DeviceAllocation& a = weights_[size_t(level / levels_per_binding_)];
    return {a.buffer, a.offset + weight_bytes_per_level() * VkDeviceSize(level % levels_per_binding_),
            weight_bytes_per_level()};
}

void MatvecChain::record(ChainMode mode, int input) {
    const VkCommandBuffer cb = runs_.begin(run_index(mode, input), false);
    const uint32_t chunks = uint32_t(dim_ / (8 * int64_t(group_size_)));
    const ModeState& m = modes_[size_t(mode)];
    if (mode == ChainMode::Persistent) {
        const Pipeline& p = device_->pipelines().get(shader_of(mode), 4,
                                                    {group_size_, rows_, chunks, uint32_t(slot_bytes() / 4)});
        // x and y both see every slot; the shader picks each level's.
        bind(cb, p, {whole(weights_[0]), whole(m.vectors), whole(m.vectors), whole(m.counters)});
        const std::array<uint32_t, 2> push{uint32_t(input), uint32_t(levels_)};
        vk::vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push.data());
        vk::vkCmdDispatch(cb, persistent_groups_, 1, 1);
    } else {
        const bool overlap = mode == ChainMode::Overlap;
        const Pipeline& p = device_->pipelines().get(shader_of(mode), overlap ? 4 : 3, {group_size_, rows_, chunks});
        auto slot = [&](int64_t s) {
            return VkDescriptorBufferInfo{m.vectors.buffer, m.vectors.offset + slot_bytes() * VkDeviceSize(s),
                                          VkDeviceSize(dim_) * 4};
        };
        for (int64_t l = 0; l < levels_; ++l) {
            if (!overlap && l > 0)
                memory_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                               VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
            bind(cb, p, {level_weights(l), slot(l == 0 ? input : 1 + l), slot(2 + l), whole(m.counters)});
            const uint32_t level = uint32_t(l);
            vk::vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &level);
            vk::vkCmdDispatch(cb, workgroups_per_level(), 1, 1);
        }
    }
    Submitter::end(cb);
}

// Each run is waited for before the next is submitted, which is what orders
// one run's stores before the next one's loads (no barrier opens a run).
void MatvecChain::run(ChainMode mode, int input) {
    const size_t i = run_index(mode, input);
    if (i >= runs_.cbs.size()) throw std::invalid_argument("this chain was made without persistent workgroups");
    runs_.submit(i, 1, true);
    runs_.wait();
}

std::vector<float> MatvecChain::output(ChainMode mode) {
    VkCommandBuffer cb = begin_transfer();
    memory_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT);
    const DeviceAllocation& vectors = modes_[size_t(mode)].vectors;
    const VkBufferCopy region{vectors.offset + slot_bytes() * VkDeviceSize(1 + levels_), staging_.offset,
                              VkDeviceSize(dim_) * 4};
    vk::vkCmdCopyBuffer(cb, vectors.buffer, staging_.buffer, 1, &region);
    memory_barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
    finish_transfer(cb);
    std::vector<float> out(static_cast<size_t>(dim_));
    std::memcpy(out.data(), staging_.mapped, out.size() * 4);
    return out;
}

bool MatvecChain::gave_up(ChainMode mode) {
    VkCommandBuffer cb = begin_transfer();
    memory_barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   VK_ACCESS_TRANSFER_READ_BIT);
    const DeviceAllocation& counters = modes_[size_t(mode)].counters;
    const VkBufferCopy region{counters.offset, staging_.offset, 4};
    vk::vkCmdCopyBuffer(cb, counters.buffer, staging_.buffer, 1, &region);
    memory_barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
    finish_transfer(cb);
    uint32_t flag = 0;
    std::memcpy(&flag, staging_.mapped, 4);
    return flag != 0;
}

VkCommandBuffer MatvecChain::begin_transfer() { return transfers_.begin_one_time(); }

void MatvecChain::finish_transfer(VkCommandBuffer cb) {
    Submitter::end(cb);
    transfers_.submit_and_wait();
}

}  // namespace tessera::bench
