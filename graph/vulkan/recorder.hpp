// What a Vulkan kernel uses to record its work into the command buffer of a
// segment: bind tensors, dispatch a shader, copy bytes. Barriers are the
// recorder's job: one goes in before a command that reads what an earlier
// command wrote, or writes what an earlier command read or wrote, since the
// last barrier; independent commands (q, k and v projections) run without.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "graph/tensor.hpp"
#include "graph/vulkan/memory_pool.hpp"
#include "graph/vulkan/vk_api.hpp"

namespace tessera {

class VulkanBackend;
class VulkanDevice;

// A tensor bound as a storage buffer: the buffer range starts at an aligned
// offset, `shift` bytes before the tensor's first byte (shaders add it).
struct BoundTensor {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, range = 0;
    uint32_t shift = 0;
    // The tensor's first element as an index into the binding viewed as an
    // array of elem_bytes-sized elements.
    uint32_t first(uint32_t elem_bytes) const { return shift / elem_bytes; }
};

struct RecordStats {
    uint32_t dispatches = 0, barriers = 0, copies = 0;
};

class Recorder {
public:
    // Scratch memory the recording allocates goes into `scratch_owner`, to be
    // released when its command buffer is no longer used.
    Recorder(VulkanBackend& backend, VkCommandBuffer cb, std::vector<DeviceAllocation>& scratch_owner);

    VulkanDevice& device();
    // What a binding's offset must be a multiple of: the device's
    // minStorageBufferOffsetAlignment, and at least 4 bytes.
    VkDeviceSize binding_alignment();
    // Where t is on the device; a weight's copy is held from then on (take_holds()).
    BoundTensor bind(const Tensor& t);
    // A weight derived from model weights, among them `anchor`
    // (VulkanBackend::derived: `make` computes its values the first time),
    // held as bind holds a weight.
    BoundTensor bind_derived(const Tensor& anchor, const std::vector<const void*>& sources, uint64_t form,
                             const std::function<std::vector<float>()>& make);
    // The weights' device copies the bindings so far read (VulkanBackend::locate):
    // whoever runs the commands holds them until the commands are gone.
    std::vector<std::shared_ptr<void>> take_holds() { return std::move(holds_); }

    // Dispatches `shader` (specialization constants `spec`) over `groups`
    // workgroups (times z) with reads then writes bound as bindings 0.. and
    // `push` as push constants. Groups beyond the device's limit per
    // dimension are split into an x*y grid: shaders rebuild the index as
    // flat_group() (shaders/common.glsl) and return past the last.
    template <class Push>
    void dispatch(std::string_view shader, const std::vector<uint32_t>& spec, std::initializer_list<BoundTensor> reads,
                  std::initializer_list<BoundTensor> writes, const Push& push, uint64_t groups, uint32_t z = 1) {
        static_assert(sizeof(Push) <= 128, "push constants are limited to 128 bytes");
        dispatch_raw(shader, spec, reads, writes, &push, sizeof(Push), groups, z);
    }
    // Device memory of `bytes` for a kernel's copy of `source` in another
    // form (the tensor-core matmul's fp16 copy of its activations); `form`
    // tells copies of one range apart (its caller's hash of the layout). One
    // region serves the whole recording: `fresh` is false when it still
    // holds the copy an earlier command made of the same source range in the
    // same form and size, and nothing has written that range since (q, k and
    // v projections share one copy); else the caller writes it. Overwriting
    // it is ordered after its earlier readers like any other write.
    BoundTensor derived_copy(const BoundTensor& source, uint64_t form, VkDeviceSize bytes, bool& fresh);
    // The same region as `bytes` of working memory for a kernel's partial
    // results (none of derived_copy's copies survive it).
    BoundTensor scratch(VkDeviceSize bytes);
    // A second region, for what a kernel derives from a source and reads
    // beside a copy in the first (matmul_id's route of its expert ids next
    // to x's fp16 copy): taking it leaves the first region as it is. As with
    // derived_copy, `fresh` is false when it still holds what an earlier
    // command derived from the same source range in the same form and size,
    // nothing having written that range since (gate, up and down of a MoE
    // layer share one route); else the caller writes it.
    BoundTensor derived_aside(const BoundTensor& source, uint64_t form, VkDeviceSize bytes, bool& fresh);
    // Copies their source's kernel writes: before recording, the backend
    // names each tensor a command of the recording reads through an fp16
    // copy (VulkanKernel::half_input), and the kernel that stores it writes
    // the copy beside it into scratch(bytes), then calls holds_copy; the
    // reader's derived_copy finds it there, one dispatch and level fewer.
    void want_half_copy(const Tensor& t) { half_copies_wanted_.insert(&t); }
    bool half_copy_wanted(const Tensor& t) const { return half_copies_wanted_.contains(&t); }
    void holds_copy(const BoundTensor& source, uint64_t form, VkDeviceSize bytes);
    // `n` counters (uint32, from the binding's start) for the workgroups of
    // one dispatch to count on (shaders/matvec_moe.glsl): zero when the
    // recording is first submitted, and the dispatch must leave them zero,
    // since the command buffer is submitted again unchanged. Each call its
    // own counters, so that dispatches counting need no barrier between them.
    BoundTensor counters(uint32_t n);
    // Copies byte ranges (src offset, dst offset, size: relative to the bound tensors' first bytes).
    void copy(const BoundTensor& src, const BoundTensor& dst, const std::vector<VkBufferCopy>& regions);

    // Goes on recording into `cb`, to be submitted after the command buffer
    // so far (a barrier there orders commands of both).
    void continue_in(VkCommandBuffer cb) { cb_ = cb; }
    const RecordStats& stats() const { return stats_; }
    // Makes the segment's writes visible to the host and to the next submission.
    void finish();

private:
    struct Range {
        VkBuffer buffer;
        VkDeviceSize begin, end;
        bool operator==(const Range&) const = default;
    };
    void dispatch_raw(std::string_view shader, const std::vector<uint32_t>& spec,
                      std::initializer_list<BoundTensor> reads, std::initializer_list<BoundTensor> writes,
                      const void* push, uint32_t push_bytes, uint64_t groups, uint32_t z);
    void hazard_check(const std::vector<Range>& reads, const std::vector<Range>& writes);
    void barrier();

    VulkanBackend& backend_;
    VkCommandBuffer cb_;
    std::vector<DeviceAllocation>& scratch_owner_;
    std::vector<std::shared_ptr<void>> holds_;
    struct ScratchCopy {
        Range source;
        uint64_t form;
        VkDeviceSize bytes;
        bool operator==(const ScratchCopy&) const = default;
    };
    static ScratchCopy copy_of(const BoundTensor& source, uint64_t form, VkDeviceSize bytes);
    // A scratch region: the latest allocation, and what it holds a copy of.
    struct Region {
        BoundTensor span;
        std::optional<ScratchCopy> holds;
    };
    // `bytes` of the region, a larger allocation where it is smaller
    // (earlier commands keep the smaller one).
    BoundTensor take(Region& region, VkDeviceSize bytes);
    // derived_copy and derived_aside, each in its region.
    BoundTensor derive(Region& region, const BoundTensor& source, uint64_t form, VkDeviceSize bytes, bool& fresh);
    Region scratch_;  // scratch(), derived_copy
    Region aside_;    // derived_aside
    BoundTensor counters_;          // zeroed device memory for counters(), of which
    VkDeviceSize counters_used_ = 0;  // the first bytes are taken
    std::unordered_set<const Tensor*> half_copies_wanted_;
    std::vector<Range> pending_reads_, pending_writes_;  // since the last barrier
    RecordStats stats_;
};

}  // namespace tessera
