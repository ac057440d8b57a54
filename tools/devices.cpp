// `tessera devices`: the Vulkan devices --backend vulkan --device N can use.
#include <cstdio>
#include <string>

#include "graph/backend.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "support/error.hpp"
#include "tools/commands.hpp"

namespace tessera::cli {
namespace {

void run_devices() {
    std::vector<VulkanDeviceInfo> devices;
    try {
        devices = list_vulkan_devices();
    } catch (const BackendUnavailable& e) {
        throw Error(std::string("no Vulkan devices: ") + e.what());
    }
    if (devices.empty()) throw Error("no Vulkan devices (on Debian, lavapipe runs Vulkan on the CPU: apt-get install mesa-vulkan-drivers)");
    for (const VulkanDeviceInfo& d : devices) {
        const std::string coopmat = d.coopmat ? ", NV cooperative matrix fp16 " + std::to_string(d.coopmat.m) + "x" +
                                                    std::to_string(d.coopmat.n) + "x" + std::to_string(d.coopmat.k)
                                              : "";
        const std::string workgroup = d.workgroup_coopmat ? ", workgroup-scope cooperative matrices (" +
                                                                std::to_string(d.workgroup_coopmat.invocations) +
                                                                " invocations)"
                                                          : "";
        std::printf("%d: %s (%s, Vulkan %u.%u, %.1f GiB device memory, subgroup %u%s%s%s)\n", d.index, d.name.c_str(),
                    d.type.c_str(), VK_API_VERSION_MAJOR(d.api_version), VK_API_VERSION_MINOR(d.api_version),
                    double(d.device_local_bytes) / double(1ull << 30), d.subgroup_size, coopmat.c_str(),
                    workgroup.c_str(), d.int_dot ? ", 8-bit integer dot products" : "");
        std::printf("   driver: %s\n", d.driver.c_str());
        if (!d.missing.empty()) std::printf("   unusable: lacks %s\n", d.missing.c_str());
    }
}

}  // namespace

void add_devices_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("devices", "List the Vulkan devices (for --backend vulkan --device N)");
    cmd->callback(run_devices);
}

}  // namespace tessera::cli
