#include "graph/vulkan/vulkan_device.hpp"

#include <cstring>
#include <map>

#include "graph/vulkan/memory_pool.hpp"
#include "graph/vulkan/pipeline_cache.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera {

namespace {

// One instance per process, created on first use and kept.
VkInstance shared_instance() {
    static std::once_flag once;
    static VkInstance instance = VK_NULL_HANDLE;
    static std::string failure;
    std::call_once(once, [] {
        try {
            vk::load_loader();
            uint32_t version = VK_API_VERSION_1_0;
            vk::vkEnumerateInstanceVersion(&version);
            if (version < VK_API_VERSION_1_2) {
                failure = "the Vulkan loader supports only Vulkan " + std::to_string(VK_API_VERSION_MAJOR(version)) +
                          "." + std::to_string(VK_API_VERSION_MINOR(version)) + "; tessera needs 1.2";
                return;
            }
            VkApplicationInfo app{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                  .pApplicationName = "tessera",
                                  .apiVersion = VK_API_VERSION_1_3};  // 1.3: workgroup coopmat shaders are SPIR-V 1.6
            VkInstanceCreateInfo create{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
            const VkResult r = vk::vkCreateInstance(&create, nullptr, &instance);
            if (r != VK_SUCCESS) {
                failure = "cannot create a Vulkan instance: " + vk::result_name(r);
                return;
            }
            vk::load_instance_functions(instance);
        } catch (const VulkanUnavailable& e) {
            failure = e.what();
        }
    });
    if (!failure.empty()) throw VulkanUnavailable(failure);
    return instance;
}

std::vector<VkPhysicalDevice> physical_devices() {
    VkInstance instance = shared_instance();
    uint32_t n = 0;
    vk::check(vk::vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(n);
    vk::check(vk::vkEnumeratePhysicalDevices(instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
    devices.resize(n);
    return devices;
}

bool has_extension(VkPhysicalDevice pd, const char* name) {
    uint32_t n = 0;
    vk::vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> ext(n);
    vk::vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, ext.data());
    for (const auto& e : ext)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

const char* device_type_name(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

// The features tessera uses, queried (and later enabled) as one chain; the
// cooperative-matrix, integer dot product and pipeline statistics ones join
// it where the device has their extensions.
struct FeatureChain {
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coopmat{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    VkPhysicalDeviceVulkan12Features v12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features v11{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .pNext = &v12};
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR idot{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR};
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrixFeaturesKHR coopmat_khr{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
    VkPhysicalDeviceCooperativeMatrix2FeaturesNV coopmat2{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
    VkPhysicalDeviceFeatures2 root{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v11};
    FeatureChain(bool with_coopmat, bool with_int_dot, bool with_executable, bool with_coopmat2) {
        void** tail = &v12.pNext;
        auto link = [&tail](auto& features) {
            *tail = &features;
            tail = &features.pNext;
        };
        if (with_int_dot) link(idot);
        if (with_executable) link(executable);
        if (with_coopmat) link(coopmat);
        if (with_coopmat2) {
            link(coopmat_khr);
            link(coopmat2);
        }
    }
    FeatureChain(const FeatureChain&) = delete;
};

// The largest fp16 x fp16 -> fp32 subgroup shape the device lists for compute
// shaders, where it has the extension, its feature and the Vulkan memory
// model (GL_NV_cooperative_matrix shaders declare it).
CoopmatShape find_coopmat(VkPhysicalDevice pd, const FeatureChain& f) {
    if (!f.coopmat.cooperativeMatrix || !f.v12.vulkanMemoryModel ||
        vk::vkGetPhysicalDeviceCooperativeMatrixPropertiesNV == nullptr)
        return {};
    VkPhysicalDeviceCooperativeMatrixPropertiesNV stages{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 props{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &stages};
    vk::vkGetPhysicalDeviceProperties2(pd, &props);
    if (!(stages.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) return {};
    uint32_t n = 0;
    vk::vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(pd, &n, nullptr);
    std::vector<VkCooperativeMatrixPropertiesNV> shapes(n, {.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
    vk::vkGetPhysicalDeviceCooperativeMatrixPropertiesNV(pd, &n, shapes.data());
    CoopmatShape best;
    for (const auto& s : shapes) {
        const bool fits = s.AType == VK_COMPONENT_TYPE_FLOAT16_NV && s.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
                          s.CType == VK_COMPONENT_TYPE_FLOAT32_NV && s.DType == VK_COMPONENT_TYPE_FLOAT32_NV &&
                          s.scope == VK_SCOPE_SUBGROUP_NV;
        if (fits && uint64_t(s.MSize) * s.NSize * s.KSize > uint64_t(best.m) * best.n * best.k)
            best = {s.MSize, s.NSize, s.KSize};
    }
    return best;
}

// The workgroup-scope fp16 x fp16 -> fp32 matrices of flexible dimensions
// in workgroups of 256 invocations (the tensor-core skeleton's), where the
// device has both extensions, their features, Vulkan 1.3 (the shaders are
// SPIR-V 1.6) and the Vulkan memory model.
WorkgroupCoopmat find_workgroup_coopmat(VkPhysicalDevice pd, const FeatureChain& f, uint32_t api_version) {
    constexpr uint32_t kInvocations = 256;
    if (api_version < VK_API_VERSION_1_3 || !f.coopmat_khr.cooperativeMatrix ||
        !f.coopmat2.cooperativeMatrixWorkgroupScope || !f.coopmat2.cooperativeMatrixFlexibleDimensions ||
        !f.v12.vulkanMemoryModel || vk::vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV == nullptr)
        return {};
    VkPhysicalDeviceCooperativeMatrix2PropertiesNV limits{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV};
    VkPhysicalDeviceProperties2 props{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &limits};
    vk::vkGetPhysicalDeviceProperties2(pd, &props);
    if (limits.cooperativeMatrixWorkgroupScopeMaxWorkgroupSize < kInvocations) return {};
    uint32_t n = 0;
    vk::vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(pd, &n, nullptr);
    std::vector<VkCooperativeMatrixFlexibleDimensionsPropertiesNV> shapes(
        n, {.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV});
    vk::vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV(pd, &n, shapes.data());
    for (const auto& s : shapes)
        if (s.AType == VK_COMPONENT_TYPE_FLOAT16_NV && s.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
            s.CType == VK_COMPONENT_TYPE_FLOAT32_NV && s.ResultType == VK_COMPONENT_TYPE_FLOAT32_NV &&
            s.scope == VK_SCOPE_WORKGROUP_NV && s.workgroupInvocations == kInvocations && !s.saturatingAccumulation)
            return {kInvocations, s.MGranularity, s.NGranularity, s.KGranularity,
                    limits.cooperativeMatrixWorkgroupScopeReservedSharedMemory};
    return {};
}

VulkanDeviceInfo describe_device(VkPhysicalDevice pd, int index) {
    VulkanDeviceInfo info;
    info.index = index;
    VkPhysicalDeviceSubgroupProperties subgroup{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                            .pNext = &subgroup};
    VkPhysicalDeviceProperties2 props{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
    vk::vkGetPhysicalDeviceProperties2(pd, &props);
    info.name = props.properties.deviceName;
    info.type = device_type_name(props.properties.deviceType);
    info.on_host_cpu = props.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    info.api_version = props.properties.apiVersion;
    info.subgroup_size = subgroup.subgroupSize;
    info.subgroup_arithmetic = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                               (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    info.subgroup_shuffle = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) &&
                            (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    VkPhysicalDeviceMemoryProperties mem;
    vk::vkGetPhysicalDeviceMemoryProperties(pd, &mem);
    for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
        if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) info.device_local_bytes += mem.memoryHeaps[h].size;

    std::string missing;
    auto need = [&](bool ok, const char* what) {
        if (!ok) missing += (missing.empty() ? "" : ", ") + std::string(what);
    };
    need(info.api_version >= VK_API_VERSION_1_2, "Vulkan 1.2");
    if (info.api_version >= VK_API_VERSION_1_2) {
        FeatureChain f(has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME),
                       has_extension(pd, VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME),
                       has_extension(pd, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME),
                       has_extension(pd, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) &&
                           has_extension(pd, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME));
        vk::vkGetPhysicalDeviceFeatures2(pd, &f.root);
        info.coopmat = find_coopmat(pd, f);
        info.workgroup_coopmat = find_workgroup_coopmat(pd, f, info.api_version);
        info.int_dot = f.idot.shaderIntegerDotProduct == VK_TRUE;
        info.pipeline_statistics = f.executable.pipelineExecutableInfo == VK_TRUE;
        need(f.v11.storageBuffer16BitAccess, "storageBuffer16BitAccess");
        need(f.v12.storageBuffer8BitAccess, "storageBuffer8BitAccess");
        need(f.v12.shaderFloat16, "shaderFloat16");
        need(f.v12.shaderInt8, "shaderInt8");
        need(f.v12.scalarBlockLayout, "scalarBlockLayout");
    }
    need(info.subgroup_arithmetic, "subgroup arithmetic in compute shaders");
    need(has_extension(pd, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME), VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
    info.missing = missing;
    return info;
}

}  // namespace

std::vector<VulkanDeviceInfo> list_vulkan_devices() {
    std::vector<VulkanDeviceInfo> out;
    const auto devices = physical_devices();
    for (size_t i = 0; i < devices.size(); ++i) out.push_back(describe_device(devices[i], int(i)));
    return out;
}

VulkanDevice::VulkanDevice(int index) {
    instance_ = shared_instance();
    const auto devices = physical_devices();
    if (devices.empty()) throw VulkanUnavailable("no Vulkan device found (on Debian, lavapipe runs Vulkan on the CPU: apt-get install mesa-vulkan-drivers)");
    if (index < 0 || size_t(index) >= devices.size())
        throw VulkanUnavailable("no Vulkan device " + std::to_string(index) + ": there " +
                                (devices.size() == 1 ? "is 1" : "are " + std::to_string(devices.size())) +
                                " (see `tessera devices`)");
    physical_ = devices[size_t(index)];
    info_ = describe_device(physical_, index);
    if (!info_.missing.empty())
        throw VulkanUnavailable("Vulkan device " + std::to_string(index) + " (" + info_.name + ") lacks " + info_.missing);
    VkPhysicalDeviceProperties props;
    vk::vkGetPhysicalDeviceProperties(physical_, &props);
    limits_ = props.limits;
    vk::vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

    uint32_t n_families = 0;
    vk::vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n_families, nullptr);
    std::vector<VkQueueFamilyProperties> families(n_families);
    vk::vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n_families, families.data());
    // A compute queue; one without graphics first (it is often the less busy one).
    int chosen = -1;
    for (int pass = 0; pass < 2 && chosen < 0; ++pass)
        for (uint32_t f = 0; f < n_families && chosen < 0; ++f) {
            const VkQueueFlags flags = families[f].queueFlags;
            if ((flags & VK_QUEUE_COMPUTE_BIT) && (pass == 1 || !(flags & VK_QUEUE_GRAPHICS_BIT))) chosen = int(f);
        }
    if (chosen < 0) throw VulkanUnavailable("Vulkan device " + info_.name + " has no compute queue");
    queue_family_ = uint32_t(chosen);
    timestamp_bits_ = families[queue_family_].timestampValidBits;

    FeatureChain f(bool(info_.coopmat), info_.int_dot, info_.pipeline_statistics, bool(info_.workgroup_coopmat));
    f.v11.storageBuffer16BitAccess = VK_TRUE;
    f.v12.storageBuffer8BitAccess = VK_TRUE;
    f.v12.shaderFloat16 = VK_TRUE;
    f.v12.shaderInt8 = VK_TRUE;
    f.v12.scalarBlockLayout = VK_TRUE;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = queue_family_,
                                  .queueCount = 1,
                                  .pQueuePriorities = &priority};
    std::vector<const char*> extensions{VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    if (info_.int_dot) {
        f.idot.shaderIntegerDotProduct = VK_TRUE;
        extensions.push_back(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
    }
    if (info_.pipeline_statistics) {
        f.executable.pipelineExecutableInfo = VK_TRUE;
        extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    }
    if (info_.coopmat) {
        f.coopmat.cooperativeMatrix = VK_TRUE;
        f.v12.vulkanMemoryModel = VK_TRUE;
        extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    }
    if (info_.workgroup_coopmat) {
        f.coopmat_khr.cooperativeMatrix = VK_TRUE;
        f.coopmat2.cooperativeMatrixWorkgroupScope = VK_TRUE;
        f.coopmat2.cooperativeMatrixFlexibleDimensions = VK_TRUE;
        f.v12.vulkanMemoryModel = VK_TRUE;
        extensions.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
        extensions.push_back(VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME);
    }
    VkDeviceCreateInfo create{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &f.root,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &queue,
                              .enabledExtensionCount = uint32_t(extensions.size()),
                              .ppEnabledExtensionNames = extensions.data()};
    const VkResult r = vk::vkCreateDevice(physical_, &create, nullptr, &device_);
    if (r != VK_SUCCESS) throw VulkanUnavailable("cannot open Vulkan device " + info_.name + ": " + vk::result_name(r));
    vk::load_device_functions(device_);
    vk::vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
    memory_pool_ = std::make_unique<MemoryPool>(*this);
    pipelines_ = std::make_unique<PipelineCache>(*this);
}

VulkanDevice::~VulkanDevice() {
    if (device_ == VK_NULL_HANDLE) return;
    vk::vkDeviceWaitIdle(device_);
    pipelines_.reset();
    memory_pool_.reset();
    vk::vkDestroyDevice(device_, nullptr);
}

uint64_t VulkanDevice::free_device_local_bytes() const {
    if (!has_extension(physical_, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) return info_.device_local_bytes;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 props{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &budget};
    vk::vkGetPhysicalDeviceMemoryProperties2(physical_, &props);
    uint64_t free = 0;
    for (uint32_t h = 0; h < props.memoryProperties.memoryHeapCount; ++h)
        if (props.memoryProperties.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            free += budget.heapBudget[h] - std::min(budget.heapUsage[h], budget.heapBudget[h]);
    return free;
}

std::shared_ptr<VulkanDevice> open_vulkan_device(int index) {
    static std::mutex mutex;
    static std::map<int, std::weak_ptr<VulkanDevice>> open;
    std::lock_guard lock(mutex);
    if (auto device = open[index].lock()) return device;
    std::shared_ptr<VulkanDevice> device(new VulkanDevice(index));
    open[index] = device;
    return device;
}

}  // namespace tessera
