// Issue 40's experiment: can a level of token generation load its weights
// while the level it depends on still computes? A chain of square matrix x
// vector products y_L = W_L y_(L-1) (F16 weights, F32 vectors), each level
// its own weights in device memory, recorded into one command buffer in one
// of two modes (shaders/matvec_chain.glsl):
//   Barriers  a pipeline barrier between levels, as the backend records them
//   Overlap   no barrier: each workgroup loads its weight rows into
//             registers, then waits on an atomic counter of the level before
//             (acquire), computes, stores and counts itself (release)
// Used by BM_VulkanOverlapChain (bench/vulkan_overlap_chain_bench.cpp) and
// its test, which runs both modes on lavapipe against a CPU reference.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "graph/vulkan/memory_pool.hpp"
#include "graph/vulkan/vulkan_device.hpp"

namespace tessera::bench {

enum class ChainMode { Barriers, Overlap };

class MatvecChain {
public:
    // `matrices`: dim x dim halves each, row-major; level L multiplies by a
    // copy of matrices[L % size] of its own. `inputs`: two x vectors of dim,
    // one of which a run starts from. `rows_per_group`: rows of y per
    // workgroup. Throws VulkanUnavailable when dim is not a multiple of
    // dim_multiple(device, rows_per_group).
    MatvecChain(VulkanDevice& device, int64_t dim, int64_t levels, uint32_t rows_per_group,
                const std::vector<std::vector<uint16_t>>& matrices, const std::array<std::vector<float>, 2>& inputs);
    ~MatvecChain();
    MatvecChain(const MatvecChain&) = delete;
    MatvecChain& operator=(const MatvecChain&) = delete;

    // What dim must be a multiple of: 8 halves per piece times the workgroup size, and the rows per workgroup.
    static int64_t dim_multiple(const VulkanDevice& device, uint32_t rows_per_group);

    // Submits the levels from inputs[input] in `mode` and waits for them.
    void run(ChainMode mode, int input);
    // The last level's vector of the latest run in `mode`.
    std::vector<float> output(ChainMode mode);
    // Whether a workgroup of an Overlap run stopped waiting after its poll
    // limit (its result is then wrong) since the chain was made.
    bool overlap_gave_up();

    int64_t levels() const { return levels_; }
    uint64_t weight_bytes_per_level() const { return uint64_t(dim_) * uint64_t(dim_) * 2; }
    uint32_t workgroups_per_level() const { return uint32_t(dim_ / rows_); }

private:
    // Each mode's vectors (x0, x1, then level L's output in slot 2 + L) and
    // its recorded runs, one per input.
    struct ModeState {
        DeviceAllocation vectors;
        std::array<VkCommandBuffer, 2> runs{};
    };

    VkDeviceSize slot_bytes() const;
    void record(ChainMode mode, int input, VkCommandBuffer cb);
    VkCommandBuffer begin_transfer();          // in transfer_pool_, begun
    void finish_transfer(VkCommandBuffer cb);  // ends, submits and waits for it
    void submit_and_wait(VkCommandBuffer cb);

    VulkanDevice& device_;
    int64_t dim_, levels_;
    uint32_t rows_, group_size_;
    std::vector<DeviceAllocation> weights_;  // one per level
    std::array<ModeState, 2> modes_;
    DeviceAllocation counters_;  // Overlap: [0] the error flag, [1 + L] level L's finished workgroups
    DeviceAllocation staging_;   // host-visible: uploads and read-backs
    VkCommandPool pool_ = VK_NULL_HANDLE;           // the recorded runs
    VkCommandPool transfer_pool_ = VK_NULL_HANDLE;  // one transfer at a time, reset before each
    VkFence fence_ = VK_NULL_HANDLE;
};

}  // namespace tessera::bench
