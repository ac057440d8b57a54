#include "graph/choice/backend_choice.hpp"

#include "graph/cpu/cpu_backend.hpp"
#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera {

std::optional<BackendKind> parse_backend_kind(std::string_view name) {
    if (name == "cpu") return BackendKind::Cpu;
    if (name == "vulkan") return BackendKind::Vulkan;
    if (name == "auto") return BackendKind::Auto;
    return std::nullopt;
}

std::string_view backend_kind_name(BackendKind kind) {
    switch (kind) {
        case BackendKind::Cpu: return "cpu";
        case BackendKind::Vulkan: return "vulkan";
        case BackendKind::Auto: return "auto";
    }
    return "?";
}

BackendSet make_backends(BackendKind kind, int device, int n_threads) {
    return make_backends(kind, std::vector<int>{device}, n_threads);
}

BackendSet make_backends(BackendKind kind, const std::vector<int>& devices, int n_threads) {
    if (devices.empty()) throw Error("no device to run on: the device list is empty");
    BackendSet set;
    if (kind == BackendKind::Cpu && devices.size() > 1)
        throw Error("a model split over " + std::to_string(devices.size()) + " devices needs --backend vulkan");
    if (kind != BackendKind::Cpu) {
        try {
            for (int device : devices) set.backends.push_back(std::make_shared<VulkanBackend>(device));
        } catch (const VulkanUnavailable& e) {
            if (kind == BackendKind::Vulkan || devices.size() > 1) throw;
            set.notice = std::string("Vulkan unavailable (") + e.what() + "): running on the CPU";
        }
    }
    // Beside a device, the CPU runs only what the device cannot, and a team
    // of threads spinning between its parallel regions would take the cores
    // a CPU-side driver (lavapipe) or the submitting thread needs: one
    // thread unless asked for more.
    const bool beside_device = !set.backends.empty();
    set.backends.push_back(std::make_shared<CpuBackend>(beside_device && n_threads <= 0 ? 1 : n_threads));
    return set;
}

}  // namespace tessera
