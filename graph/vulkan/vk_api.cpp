#include "graph/vulkan/vk_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "graph/vulkan/vulkan_error.hpp"

namespace tessera::vk {

#define TESSERA_VK_DEFINE(name) PFN_##name name = nullptr;
TESSERA_VK_GLOBAL_FUNCTIONS(TESSERA_VK_DEFINE)
TESSERA_VK_INSTANCE_FUNCTIONS(TESSERA_VK_DEFINE)
TESSERA_VK_OPTIONAL_INSTANCE_FUNCTIONS(TESSERA_VK_DEFINE)
TESSERA_VK_DEVICE_FUNCTIONS(TESSERA_VK_DEFINE)
TESSERA_VK_OPTIONAL_DEVICE_FUNCTIONS(TESSERA_VK_DEFINE)
#undef TESSERA_VK_DEFINE

namespace {

PFN_vkGetInstanceProcAddr get_instance_proc = nullptr;

template <class F>
void load(F& f, const char* name, VkInstance instance) {
    f = reinterpret_cast<F>(get_instance_proc(instance, name));
    if (f == nullptr) throw VulkanUnavailable(std::string("the Vulkan loader has no ") + name);
}

}  // namespace

void load_loader() {
    static std::once_flag once;
    static std::string failure;
    std::call_once(once, [] {
        void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib == nullptr) {
            failure = "no Vulkan loader (libvulkan.so.1; on Debian: apt-get install libvulkan1 mesa-vulkan-drivers)";
            return;
        }
        get_instance_proc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(lib, "vkGetInstanceProcAddr"));
        if (get_instance_proc == nullptr) {
            failure = "libvulkan.so.1 has no vkGetInstanceProcAddr";
            return;
        }
        try {
#define TESSERA_VK_LOAD(name) load(name, #name, VK_NULL_HANDLE);
            TESSERA_VK_GLOBAL_FUNCTIONS(TESSERA_VK_LOAD)
#undef TESSERA_VK_LOAD
        } catch (const VulkanUnavailable& e) {
            failure = e.what();
        }
    });
    if (!failure.empty()) throw VulkanUnavailable(failure);
}

void load_instance_functions(VkInstance instance) {
#define TESSERA_VK_LOAD(name) load(name, #name, instance);
    TESSERA_VK_INSTANCE_FUNCTIONS(TESSERA_VK_LOAD)
#undef TESSERA_VK_LOAD
#define TESSERA_VK_LOAD(name) name = reinterpret_cast<PFN_##name>(get_instance_proc(instance, #name));
    TESSERA_VK_OPTIONAL_INSTANCE_FUNCTIONS(TESSERA_VK_LOAD)
#undef TESSERA_VK_LOAD
}

void load_device_functions(VkDevice device) {
#define TESSERA_VK_LOAD(name)                                                                  \
    name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));                   \
    if (name == nullptr) throw VulkanUnavailable("the Vulkan device has no " + std::string(#name));
    TESSERA_VK_DEVICE_FUNCTIONS(TESSERA_VK_LOAD)
#undef TESSERA_VK_LOAD
#define TESSERA_VK_LOAD(name) name = reinterpret_cast<PFN_##name>(vkGetDeviceProcAddr(device, #name));
    TESSERA_VK_OPTIONAL_DEVICE_FUNCTIONS(TESSERA_VK_LOAD)
#undef TESSERA_VK_LOAD
}

std::string result_name(VkResult r) {
    switch (r) {
        case VK_SUCCESS: return "VK_SUCCESS";
        case VK_NOT_READY: return "VK_NOT_READY";
        case VK_TIMEOUT: return "VK_TIMEOUT";
        case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
        case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
        case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
        case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
        case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
        case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
        case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
        case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
        case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
        case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
        default: return "VkResult " + std::to_string(int(r));
    }
}

void check(VkResult r, const char* call) {
    if (r == VK_SUCCESS) return;
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
        throw VulkanOutOfMemory(std::string(call) + " failed: " + result_name(r));
    throw VulkanError(std::string(call) + " failed: " + result_name(r));
}

}  // namespace tessera::vk
