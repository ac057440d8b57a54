// The Vulkan entry points tessera uses, loaded at run time from the system's
// loader (libvulkan.so.1) instead of linked: a machine without Vulkan still
// runs the tessera binary, and --backend vulkan then fails with a message.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include "graph/vulkan/vk_coopmat2.hpp"

#include <string>

namespace tessera::vk {

#define TESSERA_VK_GLOBAL_FUNCTIONS(X) \
    X(vkCreateInstance)                \
    X(vkEnumerateInstanceVersion)

#define TESSERA_VK_INSTANCE_FUNCTIONS(X)        \
    X(vkDestroyInstance)                        \
    X(vkEnumeratePhysicalDevices)               \
    X(vkGetPhysicalDeviceProperties)            \
    X(vkGetPhysicalDeviceProperties2)           \
    X(vkGetPhysicalDeviceFeatures2)             \
    X(vkGetPhysicalDeviceMemoryProperties)      \
    X(vkGetPhysicalDeviceMemoryProperties2)     \
    X(vkGetPhysicalDeviceQueueFamilyProperties) \
    X(vkEnumerateDeviceExtensionProperties)     \
    X(vkCreateDevice)                           \
    X(vkGetDeviceProcAddr)

// Extension entry points: nullptr where the loader or its drivers lack them.
#define TESSERA_VK_OPTIONAL_INSTANCE_FUNCTIONS(X)      \
    X(vkGetPhysicalDeviceCooperativeMatrixPropertiesNV) \
    X(vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV)

#define TESSERA_VK_DEVICE_FUNCTIONS(X)  \
    X(vkDestroyDevice)                  \
    X(vkGetDeviceQueue)                 \
    X(vkAllocateMemory)                 \
    X(vkFreeMemory)                     \
    X(vkMapMemory)                      \
    X(vkCreateBuffer)                   \
    X(vkDestroyBuffer)                  \
    X(vkGetBufferMemoryRequirements)    \
    X(vkBindBufferMemory)               \
    X(vkCreateShaderModule)             \
    X(vkDestroyShaderModule)            \
    X(vkCreateDescriptorSetLayout)      \
    X(vkDestroyDescriptorSetLayout)     \
    X(vkCreatePipelineLayout)           \
    X(vkDestroyPipelineLayout)          \
    X(vkCreateComputePipelines)         \
    X(vkDestroyPipeline)                \
    X(vkCreateCommandPool)              \
    X(vkDestroyCommandPool)             \
    X(vkAllocateCommandBuffers)         \
    X(vkFreeCommandBuffers)             \
    X(vkBeginCommandBuffer)             \
    X(vkEndCommandBuffer)               \
    X(vkResetCommandPool)               \
    X(vkCmdBindPipeline)                \
    X(vkCmdPushConstants)               \
    X(vkCmdPushDescriptorSetKHR)        \
    X(vkCmdDispatch)                    \
    X(vkCmdPipelineBarrier)             \
    X(vkCmdCopyBuffer)                  \
    X(vkCmdFillBuffer)                  \
    X(vkCmdWriteTimestamp)              \
    X(vkCmdResetQueryPool)              \
    X(vkCreateQueryPool)                \
    X(vkDestroyQueryPool)               \
    X(vkGetQueryPoolResults)            \
    X(vkQueueSubmit)                    \
    X(vkQueueWaitIdle)                  \
    X(vkCreateFence)                    \
    X(vkDestroyFence)                   \
    X(vkWaitForFences)                  \
    X(vkGetFenceStatus)                 \
    X(vkResetFences)                    \
    X(vkDeviceWaitIdle)

// Device extension entry points: nullptr where the device lacks them.
#define TESSERA_VK_OPTIONAL_DEVICE_FUNCTIONS(X) \
    X(vkGetPipelineExecutablePropertiesKHR)     \
    X(vkGetPipelineExecutableStatisticsKHR)

#define TESSERA_VK_DECLARE(name) extern PFN_##name name;
TESSERA_VK_GLOBAL_FUNCTIONS(TESSERA_VK_DECLARE)
TESSERA_VK_INSTANCE_FUNCTIONS(TESSERA_VK_DECLARE)
TESSERA_VK_OPTIONAL_INSTANCE_FUNCTIONS(TESSERA_VK_DECLARE)
TESSERA_VK_DEVICE_FUNCTIONS(TESSERA_VK_DECLARE)
TESSERA_VK_OPTIONAL_DEVICE_FUNCTIONS(TESSERA_VK_DECLARE)
#undef TESSERA_VK_DECLARE

// Opens the loader and the global entry points (once). Throws
// VulkanUnavailable naming what is missing.
void load_loader();
void load_instance_functions(VkInstance instance);
// tessera opens one device per process (see vulkan_device.hpp).
void load_device_functions(VkDevice device);

// Throws VulkanError naming the call and the result code when r is an error.
void check(VkResult r, const char* call);
std::string result_name(VkResult r);

}  // namespace tessera::vk
