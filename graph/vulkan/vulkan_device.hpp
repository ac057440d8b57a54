// A Vulkan physical device opened for compute: the instance, the logical
// device with the features tessera's shaders need, one compute queue, and
// the device's limits. One VulkanDevice per physical device per process,
// shared by every VulkanBackend that uses it (open_vulkan_device).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "graph/vulkan/vk_api.hpp"

namespace tessera {

class MemoryPool;
class PipelineCache;

// A cooperative-matrix shape (VK_NV_cooperative_matrix) of fp16 A (m x k)
// and B (k x n) into fp32 C and D, per subgroup: the tensor-core matmul's
// (shaders/quant/matmul_coopmat.glsl). All zero where the device has none.
struct CoopmatShape {
    uint32_t m = 0, n = 0, k = 0;
    explicit operator bool() const { return m != 0; }
};

// Cooperative matrices of workgroup scope (VK_NV_cooperative_matrix2 over
// VK_KHR_cooperative_matrix) of fp16 A and B into fp32 C and D with flexible
// dimensions: the workgroup size they take, the granularity of their m, n
// and k, and the shared memory the driver keeps for them
// (shaders/quant/matmul_workgroup_coopmat.glsl). All zero where the device
// has none.
struct WorkgroupCoopmat {
    uint32_t invocations = 0, m = 0, n = 0, k = 0, reserved_shared = 0;
    explicit operator bool() const { return invocations != 0; }
};

struct VulkanDeviceInfo {
    int index = 0;
    std::string name;
    std::string type;  // "discrete GPU", "integrated GPU", "CPU", ...
    bool on_host_cpu = false;  // a CPU implementation (lavapipe): its shaders run on the host's cores
    std::string driver;
    uint32_t api_version = 0;
    uint64_t device_local_bytes = 0;
    uint32_t subgroup_size = 0;
    bool subgroup_arithmetic = false;
    bool subgroup_shuffle = false;  // subgroup shuffles in compute shaders
    CoopmatShape coopmat;  // the largest such shape listed (and enabled when opened)
    WorkgroupCoopmat workgroup_coopmat;  // enabled when opened
    // Packed 8-bit integer dot products in shaders (shaderIntegerDotProduct,
    // enabled when opened): the matvecs with 8-bit activations use them.
    bool int_dot = false;
    // The driver reports each pipeline's statistics (registers, shared
    // memory, ...; VK_KHR_pipeline_executable_properties, enabled when opened).
    bool pipeline_statistics = false;
    // Empty when the device has every feature tessera needs, else what is missing.
    std::string missing;
};

// Every physical device the loader reports. Throws VulkanUnavailable when
// there is no loader or no instance can be created.
std::vector<VulkanDeviceInfo> list_vulkan_devices();

class VulkanDevice {
public:
    ~VulkanDevice();
    VulkanDevice(const VulkanDevice&) = delete;
    VulkanDevice& operator=(const VulkanDevice&) = delete;

    const VulkanDeviceInfo& info() const { return info_; }
    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    uint32_t queue_family() const { return queue_family_; }
    const VkPhysicalDeviceLimits& limits() const { return limits_; }
    const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }
    bool timestamps() const { return timestamp_bits_ > 0; }
    double timestamp_period_ns() const { return limits_.timestampPeriod; }
    const CoopmatShape& coopmat() const { return info_.coopmat; }
    const WorkgroupCoopmat& workgroup_coopmat() const { return info_.workgroup_coopmat; }
    // Invocations for a workgroup whose invocations stride over its work:
    // `on_gpu` on a GPU. A CPU implementation (lavapipe) runs a workgroup's
    // invocations in batches of its subgroup size, each batch through the
    // whole shader, so idle invocations cost as much as busy ones: there,
    // two subgroups (two, so that reductions across subgroups stay in play).
    uint32_t strided_group_size(uint32_t on_gpu) const {
        return info_.on_host_cpu ? std::min(on_gpu, 2 * info_.subgroup_size) : on_gpu;
    }

    // Device-local bytes still free: the driver's budget less its use where
    // it reports them (VK_EXT_memory_budget), else the device-local heaps' size.
    uint64_t free_device_local_bytes() const;

    MemoryPool& memory() { return *memory_pool_; }
    PipelineCache& pipelines() { return *pipelines_; }
    // The queue is not thread-safe: hold this while submitting.
    std::mutex& queue_mutex() { return queue_mutex_; }

private:
    friend std::shared_ptr<VulkanDevice> open_vulkan_device(int index);
    explicit VulkanDevice(int index);

    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queue_family_ = 0;
    uint32_t timestamp_bits_ = 0;
    VkPhysicalDeviceLimits limits_{};
    VkPhysicalDeviceMemoryProperties memory_{};
    VulkanDeviceInfo info_;
    std::unique_ptr<MemoryPool> memory_pool_;
    std::unique_ptr<PipelineCache> pipelines_;
    std::mutex queue_mutex_;
};

// Opens device `index` of list_vulkan_devices() (or returns the one already
// open). Throws VulkanUnavailable naming the reason.
std::shared_ptr<VulkanDevice> open_vulkan_device(int index = 0);

}  // namespace tessera
