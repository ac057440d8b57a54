// Issue 40's experiment: can a level of token generation load its weights
// while the level it depends on still computes? A chain of square matrix x
// vector products y_L = W_L y_(L-1) (F16 weights, F32 vectors), each level
// its own weights in device memory, recorded into one command buffer in one
// of three modes (shaders/matvec_chain.glsl):
//   Barriers    a dispatch a level, a pipeline barrier between levels, as the
//               backend records them
//   Overlap     a dispatch a level, no barrier: each workgroup loads its
//               weight rows into registers, then waits on an atomic counter
//               of the level before (acquire), computes, stores and counts
//               itself (release)
//   Persistent  one dispatch of G workgroups runs every level, each taking
//               every G-th row block of a level; a workgroup loads its first
//               block's weights of a level before it waits on the same
//               counters for the level before, and loads the next level's as
//               soon as it has counted itself in this one. All G must be
//               resident on the GPU at once (else the waits give up)
// Used by BM_VulkanOverlapChain (bench/vulkan_overlap_chain_bench.cpp) and
// its test, which runs the modes on lavapipe against a CPU reference.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "graph/vulkan/memory_pool.hpp"
#include "graph/vulkan/submitter.hpp"
#include "graph/vulkan/vulkan_device.hpp"

namespace tessera::bench {

enum class ChainMode { Barriers, Overlap, Persistent };

class MatvecChain {
public:
    // `matrices`: dim x dim halves each, row-major; level L multiplies by a
    // copy of matrices[L % size] of its own. `inputs`: two x vectors of dim,
    // one of which a run starts from. `rows_per_group`: rows of y a row block
    // (a workgroup's in Barriers and Overlap). `persistent_groups`: G, the
    // workgroups of a Persistent run, or 0 for no Persistent run. Throws
    // VulkanUnavailable when dim is not a multiple of dim_multiple(device,
    // rows_per_group), or when G > 0 and the levels' weights exceed one
    // binding (a Persistent run binds them all).
    MatvecChain(std::shared_ptr<VulkanDevice> device, int64_t dim, int64_t levels, uint32_t rows_per_group,
                uint32_t persistent_groups, const std::vector<std::vector<uint16_t>>& matrices,
                const std::array<std::vector<float>, 2>& inputs);
    ~MatvecChain();
    MatvecChain(const MatvecChain&) = delete;
    MatvecChain& operator=(const MatvecChain&) = delete;

    // What dim must be a multiple of: 8 halves per piece times the workgroup size, and the rows per workgroup.
    static int64_t dim_multiple(const VulkanDevice& device, uint32_t rows_per_group);

    // Submits the levels from inputs[input] in `mode` and waits for them.
    // Throws std::invalid_argument for Persistent without persistent groups.
    void run(ChainMode mode, int input);
    // The last level's vector of the latest run in `mode`.
    std::vector<float> output(ChainMode mode);
    // Whether a workgroup of a run in `mode` stopped waiting after its poll
    // limit (its result is then wrong) since the chain was made; never for Barriers.
    bool gave_up(ChainMode mode);

    int64_t levels() const { return levels_; }
    uint64_t weight_bytes_per_level() const { return uint64_t(dim_) * uint64_t(dim_) * 2; }
    uint32_t workgroups_per_level() const { return uint32_t(dim_ / rows_); }

private:
    // Each mode's vectors (x0, x1, then level L's output in slot 2 + L) and
    // its counters (Overlap and Persistent: [0] the error flag, [1 + L] level
    // L's finished workgroups; their own, as the two count different workgroups).
    struct ModeState {
        DeviceAllocation vectors;
        DeviceAllocation counters;
    };

    VkDeviceSize slot_bytes() const;
    VkDescriptorBufferInfo level_weights(int64_t level) const;  // its matrix in weights_
    // The run of `mode` from inputs[input]: command buffer 2 * mode + input of runs_.
    static size_t run_index(ChainMode mode, int input) { return 2 * size_t(mode) + size_t(input); }
    void record(ChainMode mode, int input);
    VkCommandBuffer begin_transfer();          // in transfers_, begun
    void finish_transfer(VkCommandBuffer cb);  // ends, submits and waits for it

    std::shared_ptr<VulkanDevice> device_;
    int64_t dim_, levels_;
    uint32_t rows_, group_size_, persistent_groups_;
    // The levels' matrices, as many a buffer as one binding takes (all of
    // them but on a device with small bindings, such as lavapipe's 128 MiB):
    // level L in weights_[L / levels_per_binding_], the (L %
    // levels_per_binding_)-th. Barriers and Overlap bind one level's range,
    // Persistent binds weights_[0] whole. A binding of every level rather
    // than an array of one binding a level: the pipelines take push
    // descriptors, of which a device may allow as few as 32
    // (maxPushDescriptors), fewer than the levels.
    int64_t levels_per_binding_ = 0;
    std::vector<DeviceAllocation> weights_;
    std::array<ModeState, 3> modes_;
    DeviceAllocation staging_;  // host-visible: uploads and read-backs
    Submitter runs_;            // the recorded runs, submitted again and again
    Submitter transfers_;       // one transfer at a time, recorded for it
};

}  // namespace tessera::bench
