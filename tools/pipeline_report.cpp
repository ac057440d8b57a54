#include "tools/pipeline_report.hpp"

#include <string>

#include "graph/vulkan/vulkan_backend.hpp"

namespace tessera::cli {

void print_pipeline_statistics(const Backend& backend, std::FILE* out) {
    const auto* vulkan = dynamic_cast<const VulkanBackend*>(&backend);
    if (vulkan == nullptr) return;
    const auto pipelines = vulkan->pipeline_statistics();
    if (pipelines.empty()) return;
    std::fprintf(out, "\nVulkan pipelines (%s's statistics):\n", vulkan->device_name().c_str());
    for (const auto& p : pipelines) {
        std::string spec;
        for (const uint32_t v : p.spec) spec += (spec.empty() ? "" : ",") + std::to_string(v);
        std::string line = p.shader + " [" + spec + "]";
        for (const auto& [name, value] : p.values) line += " | " + name + " " + value;
        std::fprintf(out, "%s\n", line.c_str());
    }
}

}  // namespace tessera::cli
