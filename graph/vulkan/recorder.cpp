#include "graph/vulkan/recorder.hpp"

#include <algorithm>

#include "graph/vulkan/pipeline_cache.hpp"
#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_device.hpp"

namespace tessera {

namespace {

bool overlaps(VkBuffer b, VkDeviceSize begin, VkDeviceSize end, VkBuffer b2, VkDeviceSize begin2, VkDeviceSize end2) {
    return b == b2 && begin < end2 && begin2 < end;
}

}  // namespace

Recorder::Recorder(VulkanBackend& backend, VkCommandBuffer cb, std::vector<DeviceAllocation>& scratch_owner)
    : backend_(backend), cb_(cb), scratch_owner_(scratch_owner) {}

VulkanDevice& Recorder::device() { return backend_.device(); }

VkDeviceSize Recorder::binding_alignment() {
    return std::max<VkDeviceSize>(device().limits().minStorageBufferOffsetAlignment, 4);
}

BoundTensor Recorder::bind(const Tensor& t) {
    std::shared_ptr<void> holder;
    const DeviceSpan span = backend_.locate(t, holder);
    if (holder) holds_.push_back(std::move(holder));
    const VkDeviceSize align = binding_alignment();
    BoundTensor b;
    b.buffer = span.buffer;
    b.offset = span.offset / align * align;
    b.shift = uint32_t(span.offset - b.offset);
    b.range = std::min<VkDeviceSize>((b.shift + t.nbytes() + 3) / 4 * 4, span.buffer_end - b.offset);
    return b;
}

BoundTensor Recorder::bind_derived(const Tensor& anchor, const std::vector<const void*>& sources, uint64_t form,
                                   const std::function<std::vector<float>()>& make) {
    std::shared_ptr<void> holder;
    const DeviceSpan span = backend_.derived(anchor, sources, form, make, holder);
    if (holder) holds_.push_back(std::move(holder));
    return {.buffer = span.buffer, .offset = span.offset, .range = span.buffer_end - span.offset};
}

BoundTensor Recorder::derived_copy(const BoundTensor& source, uint64_t form, VkDeviceSize bytes, bool& fresh) {
    return derive(scratch_, source, form, bytes, fresh);
}

BoundTensor Recorder::derived_aside(const BoundTensor& source, uint64_t form, VkDeviceSize bytes, bool& fresh) {
    return derive(aside_, source, form, bytes, fresh);
}

BoundTensor Recorder::derive(Region& region, const BoundTensor& source, uint64_t form, VkDeviceSize bytes,
                             bool& fresh) {
    const ScratchCopy wanted = copy_of(source, form, bytes);
    fresh = region.holds != wanted || region.span.range < bytes;
    const BoundTensor taken = take(region, bytes);
    region.holds = wanted;
    return taken;
}

void Recorder::holds_copy(const BoundTensor& source, uint64_t form, VkDeviceSize bytes) {
    scratch_.holds = copy_of(source, form, bytes);
}

Recorder::ScratchCopy Recorder::copy_of(const BoundTensor& source, uint64_t form, VkDeviceSize bytes) {
    return {{source.buffer, source.offset, source.offset + source.range}, form, bytes};
}

BoundTensor Recorder::take(Region& region, VkDeviceSize bytes) {
    if (region.span.range < bytes) {
        const DeviceAllocation& a = scratch_owner_.emplace_back(device().memory().allocate(bytes, MemoryKind::Device));
        region.span = {.buffer = a.buffer, .offset = a.offset, .range = bytes};
    }
    region.holds.reset();
    return {.buffer = region.span.buffer, .offset = region.span.offset, .range = bytes};
}

BoundTensor Recorder::scratch(VkDeviceSize bytes) { return take(scratch_, bytes); }

BoundTensor Recorder::counters(uint32_t n) {
    // Zeroed a block at a time (a submission of its own, waited for): a
    // generation step's MoE layers take one block of counters.
    constexpr VkDeviceSize kBlockBytes = 64 << 10;
    const VkDeviceSize align = binding_alignment();
    const VkDeviceSize bytes = (VkDeviceSize(n) * 4 + align - 1) / align * align;
    if (counters_used_ + bytes > counters_.range) {
        const VkDeviceSize size = std::max(bytes, kBlockBytes);
        const DeviceAllocation& a = scratch_owner_.emplace_back(device().memory().allocate(size, MemoryKind::Device));
        backend_.zero(a.buffer, a.offset, size);
        counters_ = {.buffer = a.buffer, .offset = a.offset, .range = size};
        counters_used_ = 0;
    }
    const BoundTensor taken{.buffer = counters_.buffer, .offset = counters_.offset + counters_used_, .range = bytes};
    counters_used_ += bytes;
    return taken;
}

void Recorder::barrier() {
    const VkMemoryBarrier mb{
        .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
        .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                         VK_ACCESS_TRANSFER_WRITE_BIT};
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    vk::vkCmdPipelineBarrier(cb_, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
    pending_reads_.clear();
    pending_writes_.clear();
    ++stats_.barriers;
}

void Recorder::hazard_check(const std::vector<Range>& reads, const std::vector<Range>& writes) {
    auto hits = [](const std::vector<Range>& a, const std::vector<Range>& b) {
        for (const Range& x : a)
            for (const Range& y : b)
                if (overlaps(x.buffer, x.begin, x.end, y.buffer, y.begin, y.end)) return true;
        return false;
    };
    if (hits(reads, pending_writes_) || hits(writes, pending_writes_) || hits(writes, pending_reads_)) barrier();
    for (Region* region : {&scratch_, &aside_})
        if (region->holds && hits(writes, {region->holds->source})) region->holds.reset();
    pending_reads_.insert(pending_reads_.end(), reads.begin(), reads.end());
    pending_writes_.insert(pending_writes_.end(), writes.begin(), writes.end());
}

void Recorder::dispatch_raw(std::string_view shader, const std::vector<uint32_t>& spec,
                            std::initializer_list<BoundTensor> reads, std::initializer_list<BoundTensor> writes,
                            const void* push, uint32_t push_bytes, uint64_t groups, uint32_t z) {
    std::vector<Range> r, w;
    std::vector<VkDescriptorBufferInfo> infos;
    for (const BoundTensor& b : reads) {
        r.push_back({b.buffer, b.offset, b.offset + b.range});
        infos.push_back({b.buffer, b.offset, b.range});
    }
    for (const BoundTensor& b : writes) {
        w.push_back({b.buffer, b.offset, b.offset + b.range});
        infos.push_back({b.buffer, b.offset, b.range});
    }
    hazard_check(r, w);
    const Pipeline& p = device().pipelines().get(shader, uint32_t(infos.size()), spec);
    std::vector<VkWriteDescriptorSet> sets(infos.size());
    for (uint32_t i = 0; i < infos.size(); ++i)
        sets[i] = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                   .dstBinding = i,
                   .descriptorCount = 1,
                   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                   .pBufferInfo = &infos[i]};
    vk::vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    vk::vkCmdPushDescriptorSetKHR(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, uint32_t(sets.size()),
                                  sets.data());
    if (push_bytes > 0) vk::vkCmdPushConstants(cb_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
    const uint64_t max_x = device().limits().maxComputeWorkGroupCount[0];
    const uint32_t x = uint32_t(std::min<uint64_t>(std::max<uint64_t>(groups, 1), max_x));
    vk::vkCmdDispatch(cb_, x, uint32_t((groups + x - 1) / x), z);
    ++stats_.dispatches;
}

void Recorder::copy(const BoundTensor& src, const BoundTensor& dst, const std::vector<VkBufferCopy>& regions) {
    std::vector<Range> r, w;
    std::vector<VkBufferCopy> absolute;
    for (const VkBufferCopy& c : regions) {
        const VkDeviceSize s = src.offset + src.shift + c.srcOffset, d = dst.offset + dst.shift + c.dstOffset;
        absolute.push_back({s, d, c.size});
        r.push_back({src.buffer, s, s + c.size});
        w.push_back({dst.buffer, d, d + c.size});
    }
    hazard_check(r, w);
    vk::vkCmdCopyBuffer(cb_, src.buffer, dst.buffer, uint32_t(absolute.size()), absolute.data());
    ++stats_.copies;
}

void Recorder::finish() {
    const VkMemoryBarrier mb{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vk::vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace tessera
