// The Vulkan backend: runs graph nodes with SPIR-V kernels (graph/vulkan/
// kernels/) on one device. A segment of consecutive Vulkan nodes is recorded
// once into one command buffer (barriers only where data dependencies need
// them, see recorder.hpp) and submitted once per run.
//
// Memory: computed tensors live in device-local memory; the addresses this
// backend hands out for them are placeholders the host must not touch
// (host_addressable() is false). Leaves are host memory: weights are copied
// to the device on first use and kept there while a recorded plan that reads
// them or a preload() handle lives; an external buffer (a KV cache)
// is copied once and from then on lives on the device, so it must not be
// written by another backend; inputs and outputs use shared (host-visible)
// memory the executor asks for.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/backend.hpp"
#include "graph/vulkan/memory_pool.hpp"
#include "graph/vulkan/pipeline_cache.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera {

class VulkanDevice;

// Where a tensor's first byte is on the device.
struct DeviceSpan {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;      // of the tensor's first byte in buffer
    VkDeviceSize buffer_end = 0;  // end of the allocation that holds it
};

class VulkanBackend final : public Backend, public std::enable_shared_from_this<VulkanBackend> {
public:
    // Opens Vulkan device `device_index`; throws VulkanUnavailable when it cannot.
    explicit VulkanBackend(int device_index = 0);
    ~VulkanBackend() override;

    std::string_view name() const override { return "vulkan"; }
    std::string device_name() const override;
    std::optional<uint64_t> free_memory() const override;
    bool supports(const Tensor& node) const override;
    // Matvec fusions: graph/vulkan/kernels/matvec_fusion.hpp.
    bool inlines(const Tensor& node, std::span<Tensor* const> readers) const override;
    bool stores_inlined(const Tensor& node, std::span<Tensor* const> readers) const override;
    bool computed_later(const Tensor& node, std::span<Tensor* const> readers,
                        const ReadersOf& readers_of) const override;
    bool host_addressable() const override { return false; }
    std::shared_ptr<void> allocate(size_t bytes) override;
    std::shared_ptr<void> allocate_shared(size_t bytes) override;
    std::shared_ptr<void> preload(const Tensor& weight) override;
    void copy_to_host(const void* data, size_t bytes, void* dst) const override;
    void run(std::span<Tensor* const> nodes, void* work, const NodeDone& done) override;
    void run_segment(std::span<Tensor* const> nodes, void* work, const NodeDone& done,
                     std::shared_ptr<void>& state) override;

    std::optional<RecordedWork> last_recorded_work() const override;
    // One line per pipeline: shader, specialization constants, then each
    // statistic as the driver names it (pipeline_statistics()).
    std::vector<std::string> kernel_statistics() const override;

    VulkanDevice& device() { return *device_; }
    // The driver's statistics of the pipelines created so far (PipelineCache).
    std::vector<PipelineCache::Statistics> pipeline_statistics() const;
    // Where t's data is on the device; copies a weight or external leaf it
    // has not seen to the device first. For a weight `holder` is set to what
    // keeps its copy (the span is valid while it lives), else to nullptr.
    DeviceSpan locate(const Tensor& t, std::shared_ptr<void>& holder);
    // A weight that a fused kernel derives from model weights (a product of
    // them, say), computed by `make` on the host the first time it is asked
    // for and copied to the device; `sources` (the host addresses of what it
    // is derived from) and `form` (which derivation) name it. It lives as
    // long as the device copy of weight `anchor`, one of its sources (that
    // copy's `holder` is set as locate sets it).
    using Derivation = std::function<std::vector<float>()>;
    DeviceSpan derived(const Tensor& anchor, const std::vector<const void*>& sources, uint64_t form,
                       const Derivation& make, std::shared_ptr<void>& holder);
    // Dispatches, barriers and copies of the last segment recorded.
    const RecordStats& last_record_stats() const { return last_stats_; }
    // Sets `bytes` of device memory at `offset` in `buffer` to zero, now (a
    // submission of its own, waited for).
    void zero(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes);
    // Bytes of weights copied to the device so far.
    size_t uploaded_bytes() const { return uploaded_bytes_; }

private:
    struct Region {
        size_t bytes = 0;
        DeviceAllocation allocation;
        bool mirror = false;  // a device copy of a host leaf: an external one released with the backend
        bool regrouped = false;  // a weight in its type's GPU layout: read back from the host copy
        // A weight's copy, released and its region erased when the last
        // handle or recorded plan holding it is gone (locate(); a backend
        // owned by a shared_ptr, as every one is).
        bool weight = false;
        std::weak_ptr<void> holder;
        // Weights derived from this one and others (derived()), released with it.
        std::map<std::pair<std::vector<const void*>, uint64_t>, DeviceAllocation> derived;
    };
    struct Segment;
    struct SpareSubmitters;
    // The region holding host or placeholder address p, or nullptr.
    const std::pair<const uintptr_t, Region>* find_region(const void* p) const;
    void register_region(const void* base, size_t bytes, DeviceAllocation a, bool mirror);
    // Gives an external leaf that reaches beyond the device copies it
    // overlaps one copy of their union (vulkan_backend.cpp).
    void widen_external(const Tensor& root);
    // Copies `bytes` to dst through staging chunks of a multiple of `unit`
    // bytes: fill(offset, n, out) writes bytes [offset, offset + n) of them.
    using Fill = std::function<void(size_t offset, size_t n, void* out)>;
    void upload(const DeviceAllocation& dst, size_t bytes, size_t unit, const Fill& fill);
    // Records the nodes into the segment's command buffers, submitting them in parts as it goes.
    void record_and_submit(Segment& seg, std::span<Tensor* const> nodes, bool timed);

    std::shared_ptr<VulkanDevice> device_;
    std::shared_ptr<SpareSubmitters> spare_submitters_;  // shared with the segments, so that either may go first
    std::map<uintptr_t, Region> regions_;  // by first address
    size_t uploaded_bytes_ = 0;
    RecordStats last_stats_;
};

}  // namespace tessera
