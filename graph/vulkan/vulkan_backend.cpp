#include "graph/vulkan/vulkan_backend.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "graph/op_def.hpp"
#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/head_norm_rope.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/submitter.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph/vulkan/vulkan_error.hpp"
#include "kernels/quant/gpu_layout.hpp"

namespace tessera {

namespace {

constexpr size_t kStagingBytes = size_t(64) << 20;

// A segment's recording goes to the GPU in parts as it is made, the first of
// this many nodes and each next one twice as long: the GPU starts on the
// first nodes while the host records the rest (a pass takes about a tenth of
// its run time to record: docs/measured-choices.md#recording-in-parts). A recorded
// segment that runs again is submitted whole, its parts in one submission.
constexpr size_t kFirstPartNodes = 8;

}  // namespace

// Submitters of finished segments, kept for the next ones: creating a
// command pool and fence for every prompt pass and destroying them with its
// recording cost the host more than the rest of the submission
// (docs/measured-choices.md#spare-submitters).
struct VulkanBackend::SpareSubmitters {
    static constexpr size_t kKept = 4;
    std::mutex mutex;
    std::vector<std::unique_ptr<Submitter>> spare;

    std::unique_ptr<Submitter> take(const std::shared_ptr<VulkanDevice>& device) {
        std::lock_guard lock(mutex);
        if (spare.empty()) return std::make_unique<Submitter>(device);
        std::unique_ptr<Submitter> s = std::move(spare.back());
        spare.pop_back();
        return s;
    }
    void give(std::unique_ptr<Submitter> s) {
        std::lock_guard lock(mutex);
        if (spare.size() < kKept) spare.push_back(std::move(s));
    }
};

struct VulkanBackend::Segment {
    std::shared_ptr<SpareSubmitters> spares;
    std::unique_ptr<Submitter> submitter;
    size_t parts = 0;  // command buffers recorded
    std::vector<Tensor*> nodes;
    VkQueryPool queries = VK_NULL_HANDLE;
    bool timed = false;
    RecordStats stats;
    std::vector<DeviceAllocation> scratch;  // the kernels' (Recorder::derived_copy)
    std::vector<std::shared_ptr<void>> holds;  // the weights' device copies the recording reads

    Segment(const std::shared_ptr<VulkanDevice>& d, std::shared_ptr<SpareSubmitters> s)
        : spares(std::move(s)), submitter(spares->take(d)) {}
    ~Segment() {
        if (queries != VK_NULL_HANDLE) vk::vkDestroyQueryPool(submitter->device->device(), queries, nullptr);
        release_scratch();
        spares->give(std::move(submitter));  // its command buffers are not in use: run_segment waited for them
    }
    void release_scratch() {
        for (const DeviceAllocation& a : scratch) submitter->device->memory().release(a);
        scratch.clear();
    }
};

VulkanBackend::VulkanBackend(int device_index)
    : device_(open_vulkan_device(device_index)), spare_submitters_(std::make_shared<SpareSubmitters>()) {}

VulkanBackend::~VulkanBackend() {
    for (auto& [base, region] : regions_) {  // weights' copies go with their last holder
        if (region.mirror && !region.weight) device_->memory().release(region.allocation);
        for (const auto& [key, d] : region.derived) device_->memory().release(d);
    }
}

std::vector<PipelineCache::Statistics> VulkanBackend::pipeline_statistics() const {
    return device_->pipelines().statistics();
}

std::optional<RecordedWork> VulkanBackend::last_recorded_work() const {
    return RecordedWork{.dispatches = last_stats_.dispatches, .barriers = last_stats_.barriers};
}

std::vector<std::string> VulkanBackend::kernel_statistics() const {
    std::vector<std::string> lines;
    for (const auto& p : pipeline_statistics()) {
        std::string spec;
        for (const uint32_t v : p.spec) spec += (spec.empty() ? "" : ",") + std::to_string(v);
        std::string line = p.shader + " [" + spec + "]";
        for (const auto& [name, value] : p.values) line += " | " + name + " " + value;
        lines.push_back(std::move(line));
    }
    return lines;
}

std::string VulkanBackend::device_name() const { return device_->info().name; }

std::optional<uint64_t> VulkanBackend::free_memory() const { return device_->free_device_local_bytes(); }

bool VulkanBackend::supports(const Tensor& node) const {
    const VulkanKernel* k = find_kernel<VulkanKernel>(*node.op);
    if (k == nullptr || !k->supports(node)) return false;
    // Every tensor the kernel binds must fit one buffer binding.
    const VkDeviceSize max_range = device_->limits().maxStorageBufferRange;
    if (node.nbytes() + 256 > max_range) return false;
    for (const Tensor* s : node.src)
        if (s->storage_root()->nbytes() + 256 > max_range) return false;
    return true;
}

bool VulkanBackend::inlines(const Tensor& node, std::span<Tensor* const> readers) const {
    return vkk::inlines(node, readers) || vkk::moe_inlines(node, readers) || vkk::head_norm_inlines(node, readers);
}

bool VulkanBackend::stores_inlined(const Tensor& node, std::span<Tensor* const> readers) const {
    return vkk::moe_stores(node, readers);
}

bool VulkanBackend::computed_later(const Tensor& node, std::span<Tensor* const> readers,
                                   const ReadersOf& readers_of) const {
    return vkk::moe_computed_later(node, readers, readers_of) || vkk::head_norm_computed_later(node, readers, readers_of);
}

void VulkanBackend::register_region(const void* base, size_t bytes, DeviceAllocation a, bool mirror) {
    regions_[reinterpret_cast<uintptr_t>(base)] = Region{.bytes = bytes, .allocation = a, .mirror = mirror};
}

const std::pair<const uintptr_t, VulkanBackend::Region>* VulkanBackend::find_region(const void* p) const {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = regions_.upper_bound(a);
    if (it == regions_.begin()) return nullptr;
    --it;
    return a < it->first + std::max<size_t>(it->second.bytes, 1) ? &*it : nullptr;
}

std::shared_ptr<void> VulkanBackend::allocate(size_t bytes) {
    const size_t size = std::max<size_t>(bytes, 64);
    // The placeholder addresses: reserved, never backed, so a host access faults at once.
    void* base = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw VulkanOutOfMemory("cannot reserve address space for a Vulkan buffer");
    DeviceAllocation a;
    try {
        a = device_->memory().allocate(size, MemoryKind::Device);
    } catch (...) {
        munmap(base, size);
        throw;
    }
    register_region(base, size, a, false);
    return {base, [this, a, size, device = device_](void* p) {
                regions_.erase(reinterpret_cast<uintptr_t>(p));
                device->memory().release(a);
                munmap(p, size);
            }};
}

std::shared_ptr<void> VulkanBackend::allocate_shared(size_t bytes) {
    const size_t size = std::max<size_t>(bytes, 64);
    DeviceAllocation a = device_->memory().allocate(size, MemoryKind::Host);
    std::memset(a.mapped, 0, size);
    register_region(a.mapped, size, a, false);
    return {a.mapped, [this, a, device = device_](void* p) {
                regions_.erase(reinterpret_cast<uintptr_t>(p));
                device->memory().release(a);
            }};
}

void VulkanBackend::upload(const DeviceAllocation& dst, size_t bytes, size_t unit, const Fill& fill) {
    const size_t chunk = std::max(kStagingBytes / unit, size_t(1)) * unit;
    DeviceAllocation staging = device_->memory().allocate(std::min(bytes, chunk), MemoryKind::Host);
    Submitter s(device_);
    for (size_t done = 0; done < bytes; done += chunk) {
        const size_t n = std::min(chunk, bytes - done);
        fill(done, n, staging.mapped);
        const VkCommandBuffer cb = s.begin_one_time();
        const VkBufferCopy region{staging.offset, dst.offset + done, n};
        vk::vkCmdCopyBuffer(cb, staging.buffer, dst.buffer, 1, &region);
        Submitter::end(cb);
        s.submit_and_wait();
    }
    device_->memory().release(staging);
    uploaded_bytes_ += bytes;
}

void VulkanBackend::zero(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes) {
    std::unique_ptr<Submitter> s = spare_submitters_->take(device_);
    const VkCommandBuffer cb = s->begin_one_time();
    vk::vkCmdFillBuffer(cb, buffer, offset, bytes, 0);
    Submitter::end(cb);
    s->submit_and_wait();
    spare_submitters_->give(std::move(s));
}

void VulkanBackend::copy_to_host(const void* data, size_t bytes, void* dst) const {
    const auto* region = find_region(data);
    if (region == nullptr || region->second.regrouped) {  // host memory, or a weight whose device copy is regrouped
        std::memcpy(dst, data, bytes);
        return;
    }
    const DeviceAllocation& a = region->second.allocation;
    const size_t offset = reinterpret_cast<uintptr_t>(data) - region->first;
    if (a.mapped != nullptr) {
        std::memcpy(dst, a.mapped + offset, bytes);
        return;
    }
    DeviceAllocation staging = device_->memory().allocate(std::min(bytes, kStagingBytes), MemoryKind::Host);
    Submitter s(device_);
    for (size_t done = 0; done < bytes; done += kStagingBytes) {
        const size_t n = std::min(kStagingBytes, bytes - done);
        const VkCommandBuffer cb = s.begin_one_time();
        const VkBufferCopy copy{a.offset + offset + done, staging.offset, n};
        vk::vkCmdCopyBuffer(cb, a.buffer, staging.buffer, 1, &copy);
        const VkMemoryBarrier mb{.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                 .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                 .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vk::vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                                 nullptr, 0, nullptr);
        Submitter::end(cb);
        s.submit_and_wait();
        std::memcpy(static_cast<char*>(dst) + done, staging.mapped, n);
    }
    device_->memory().release(staging);
}

// Leaves of one external buffer may cover different ranges of it: a batch's
// KV cache (model::BatchSession) is bound one sequence at a time by prompt
// passes and whole by decode passes. The device must hold one copy of each
// byte, so a leaf reaching beyond the copies it overlaps gets a copy of their
// union, which takes their bytes from the device (the host copy is stale)
// and replaces them. Recordings that bound the replaced copies must not run
// again (BatchSession's prompt passes are gone by then; a decode pass binds
// the whole cache, so it is never replaced).
void VulkanBackend::widen_external(const Tensor& root) {
    const uintptr_t begin = reinterpret_cast<uintptr_t>(root.data), end = begin + root.nbytes();
    std::vector<uintptr_t> overlapped;
    auto it = regions_.upper_bound(begin);
    if (it != regions_.begin() && std::prev(it)->first + std::prev(it)->second.bytes > begin) --it;
    for (; it != regions_.end() && it->first < end; ++it)
        if (it->second.mirror && !it->second.weight) overlapped.push_back(it->first);
    if (overlapped.empty()) return;
    const Region& first = regions_.at(overlapped.front());
    if (overlapped.size() == 1 && overlapped.front() <= begin && overlapped.front() + first.bytes >= end) return;
    const uintptr_t lo = std::min(begin, overlapped.front());
    const uintptr_t hi = std::max(end, overlapped.back() + regions_.at(overlapped.back()).bytes);
    DeviceAllocation a = device_->memory().allocate(hi - lo, MemoryKind::Device);
    const auto* host = reinterpret_cast<const uint8_t*>(lo);
    upload(a, hi - lo, 1, [&](size_t offset, size_t n, void* out) { std::memcpy(out, host + offset, n); });
    vk::vkQueueWaitIdle(device_->queue());  // parts of a recording may still run
    Submitter s(device_);
    const VkCommandBuffer cb = s.begin_one_time();
    for (uintptr_t base : overlapped) {
        const Region& old = regions_.at(base);
        const VkBufferCopy copy{old.allocation.offset, a.offset + (base - lo), old.bytes};
        vk::vkCmdCopyBuffer(cb, old.allocation.buffer, a.buffer, 1, &copy);
    }
    Submitter::end(cb);
    s.submit_and_wait();
    for (uintptr_t base : overlapped) {
        device_->memory().release(regions_.at(base).allocation);
        regions_.erase(base);
    }
    register_region(host, hi - lo, a, true);
}

DeviceSpan VulkanBackend::locate(const Tensor& t, std::shared_ptr<void>& holder) {
    holder.reset();
    const Tensor* root = t.storage_root();
    if (root->is_leaf() && root->leaf == LeafKind::External) widen_external(*root);
    const auto* region = find_region(root->data);
    if (region == nullptr) {
        if (!root->is_leaf() || root->leaf == LeafKind::Input)
            throw VulkanError("tensor '" + t.name + "' is not in memory the Vulkan device can read");
        // A weight or an external buffer: copied to the device once; a
        // weight in its type's GPU layout (kernels/quant/gpu_layout.hpp),
        // regrouped chunk by chunk of whole groups into the staging memory.
        const size_t bytes = root->nbytes();
        const auto* src = static_cast<const uint8_t*>(root->data);
        const bool weight = root->leaf == LeafKind::Weight;
        const bool regroup = weight && gpu_group_blocks(root->type) > 1;
        const QuantTypeEntry* type = regroup ? find_quant_type(root->type) : nullptr;
        const size_t device_bytes = regroup ? gpu_layout_bytes(*type, bytes) : bytes;
        DeviceAllocation a = device_->memory().allocate(device_bytes, MemoryKind::Device);
        // A chunk of whole groups holds the blocks at the same offset on the
        // host (only the last group is padded).
        upload(a, device_bytes, regroup ? gpu_group_bytes(*type) : 1, [&](size_t offset, size_t n, void* out) {
            if (regroup)
                to_gpu_layout(*type, src + offset, std::min(n, bytes - offset), out);
            else
                std::memcpy(out, src + offset, n);
        });
        const uintptr_t base = reinterpret_cast<uintptr_t>(root->data);
        register_region(root->data, bytes, a, true);
        Region& r = regions_.at(base);
        r.regrouped = regroup;
        // A backend not owned by a shared_ptr keeps its weights' copies for its life.
        const std::weak_ptr<VulkanBackend> self = weak_from_this();
        r.weight = weight && !self.expired();
        if (r.weight) {
            // The last holder releases the copy and forgets the region: the
            // host bytes at this address may belong to another weight then.
            holder = std::shared_ptr<void>(root->data, [self, device = device_, a, base](void*) {
                if (const auto backend = self.lock()) {
                    const auto it = backend->regions_.find(base);
                    if (it != backend->regions_.end() && it->second.allocation.buffer == a.buffer &&
                        it->second.allocation.offset == a.offset) {
                        for (const auto& [key, d] : it->second.derived) device->memory().release(d);
                        backend->regions_.erase(it);
                    }
                }
                device->memory().release(a);
            });
            r.holder = holder;
        }
        region = find_region(root->data);
    } else {
        holder = region->second.holder.lock();
    }
    const DeviceAllocation& a = region->second.allocation;
    const size_t offset = reinterpret_cast<uintptr_t>(t.data) - region->first;
    return {.buffer = a.buffer, .offset = a.offset + offset, .buffer_end = a.offset + a.size};
}

DeviceSpan VulkanBackend::derived(const Tensor& anchor, const std::vector<const void*>& sources, uint64_t form,
                                  const Derivation& make, std::shared_ptr<void>& holder) {
    locate(anchor, holder);
    Region& region = regions_.at(reinterpret_cast<uintptr_t>(anchor.storage_root()->data));
    DeviceAllocation& a = region.derived[{sources, form}];
    if (a.buffer == VK_NULL_HANDLE) {
        const std::vector<float> values = make();
        const size_t bytes = values.size() * sizeof(float);
        a = device_->memory().allocate(std::max<size_t>(bytes, 4), MemoryKind::Device);
        upload(a, bytes, 1, [&](size_t offset, size_t n, void* out) {
            std::memcpy(out, reinterpret_cast<const uint8_t*>(values.data()) + offset, n);
        });
    }
    return {.buffer = a.buffer, .offset = a.offset, .buffer_end = a.offset + a.size};
}

std::shared_ptr<void> VulkanBackend::preload(const Tensor& weight) {
    std::shared_ptr<void> holder;
    locate(weight, holder);
    return holder;
}

void VulkanBackend::record_and_submit(Segment& seg, std::span<Tensor* const> nodes, bool timed) {
    VkDevice dev = device_->device();
    if (seg.queries != VK_NULL_HANDLE) {
        vk::vkDestroyQueryPool(dev, seg.queries, nullptr);
        seg.queries = VK_NULL_HANDLE;
    }
    seg.timed = timed && device_->timestamps();
    if (seg.timed) {
        VkQueryPoolCreateInfo info{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                   .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                   .queryCount = uint32_t(nodes.size() + 1)};
        vk::check(vk::vkCreateQueryPool(dev, &info, nullptr, &seg.queries), "vkCreateQueryPool");
    }
    seg.nodes.clear();  // until the recording is whole
    seg.parts = 0;
    seg.submitter->reset();
    seg.release_scratch();
    VkCommandBuffer cb = seg.submitter->begin(0, false);
    if (seg.timed) {
        vk::vkCmdResetQueryPool(cb, seg.queries, 0, uint32_t(nodes.size() + 1));
        vk::vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, seg.queries, 0);
    }
    Recorder rec(*this, cb, seg.scratch);
    try {
        // Each node's kernel, found once; a kernel that stores a tensor a later
        // one reads through an fp16 copy writes the copy as well.
        std::vector<const VulkanKernel*> kernels(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) {
            const Tensor& node = *nodes[i];
            kernels[i] = find_kernel<VulkanKernel>(*node.op);
            if (kernels[i] == nullptr)
                throw VulkanError("no Vulkan kernel for node " + describe(node) + " (" + std::string(node.op->name) + ")");
            if (kernels[i]->half_input)
                if (const Tensor* x = kernels[i]->half_input(node, rec))
                    if (const Tensor* writer = vkk::half_copy_writer(*x)) rec.want_half_copy(*writer);
        }
        size_t part_size = kFirstPartNodes, part_end = part_size;
        for (size_t i = 0; i < nodes.size(); ++i) {
            kernels[i]->record(*nodes[i], rec);
            if (seg.timed) vk::vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, seg.queries, uint32_t(i + 1));
            if (i + 1 == part_end && i + 1 < nodes.size()) {  // the GPU starts on this part
                Submitter::end(cb);
                seg.submitter->submit(seg.parts++, 1, false);
                cb = seg.submitter->begin(seg.parts, false);
                rec.continue_in(cb);
                part_size *= 2;
                part_end += part_size;
            }
        }
    } catch (...) {
        // Parts in flight use the segment's command buffers and scratch memory.
        Submitter::end(cb);
        std::lock_guard lock(device_->queue_mutex());
        vk::vkQueueWaitIdle(device_->queue());
        throw;
    }
    rec.finish();
    Submitter::end(cb);
    seg.submitter->submit(seg.parts++, 1, true);
    seg.nodes.assign(nodes.begin(), nodes.end());
    seg.stats = rec.stats();
    seg.holds = rec.take_holds();  // the previous recording's holds go, once this one holds its own
}

void VulkanBackend::run_segment(std::span<Tensor* const> nodes, void*, const NodeDone& done,
                                std::shared_ptr<void>& state) {
    auto seg = std::static_pointer_cast<Segment>(state);
    if (!seg) {
        seg = std::make_shared<Segment>(device_, spare_submitters_);
        state = seg;
    }
    const bool timed = bool(done);
    const auto start = std::chrono::steady_clock::now();
    if (seg->nodes.size() != nodes.size() || !std::equal(nodes.begin(), nodes.end(), seg->nodes.begin()) ||
        seg->timed != (timed && device_->timestamps()))
        record_and_submit(*seg, nodes, timed);
    else
        seg->submitter->submit(0, seg->parts, true);
    last_stats_ = seg->stats;
    seg->submitter->wait();
    if (!done) return;
    if (!seg->timed) {  // no timestamps on this queue: the segment's time on the first node
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (size_t i = 0; i < nodes.size(); ++i) done(*nodes[i], i == 0 ? s : 0.0);
        return;
    }
    std::vector<uint64_t> ticks(nodes.size() + 1);
    vk::check(vk::vkGetQueryPoolResults(device_->device(), seg->queries, 0, uint32_t(ticks.size()),
                                        ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              "vkGetQueryPoolResults");
    for (size_t i = 0; i < nodes.size(); ++i)
        done(*nodes[i], double(ticks[i + 1] - ticks[i]) * device_->timestamp_period_ns() * 1e-9);
}

void VulkanBackend::run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) {
    std::shared_ptr<void> state;
    run_segment(nodes, work, done, state);
}

}  // namespace tessera
