// Compute pipelines, created on first use and kept for the device's life:
// one per (shader, specialization constants). Every pipeline binds its
// tensors as storage buffers 0..n-1 through push descriptors and takes up
// to kMaxPushBytes of push constants.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "graph/vulkan/vk_api.hpp"

namespace tessera {

class VulkanDevice;

inline constexpr uint32_t kMaxPushBytes = 128;  // the minimum every device guarantees

struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    uint32_t n_bindings = 0;
};

class PipelineCache {
public:
    explicit PipelineCache(VulkanDevice& device);
    ~PipelineCache();
    PipelineCache(const PipelineCache&) = delete;
    PipelineCache& operator=(const PipelineCache&) = delete;

    // Specialization constant i gets constant_id i. Throws VulkanError when
    // the build has no such shader.
    const Pipeline& get(std::string_view shader, uint32_t n_bindings, const std::vector<uint32_t>& spec);
    size_t size() const { return pipelines_.size(); }
    // Whether a pipeline of `shader` has been created (which variant a kernel chose).
    bool created(std::string_view shader);

    // What the driver reports of a pipeline's compiled code (register
    // count, shared memory, spills, ...: its own names and units), where
    // the device has VK_KHR_pipeline_executable_properties.
    struct Statistics {
        std::string shader;
        std::vector<uint32_t> spec;
        std::vector<std::pair<std::string, std::string>> values;  // name, value
    };
    // Every pipeline created so far; empty where the device reports none.
    std::vector<Statistics> statistics();

private:
    VulkanDevice& device_;
    std::map<uint32_t, std::pair<VkDescriptorSetLayout, VkPipelineLayout>> layouts_;  // by n_bindings
    std::map<std::string, VkShaderModule, std::less<>> modules_;
    std::map<std::pair<std::string, std::vector<uint32_t>>, Pipeline> pipelines_;
    std::mutex mutex_;
};

}  // namespace tessera
