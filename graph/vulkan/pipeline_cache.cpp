#include "graph/vulkan/pipeline_cache.hpp"

#include <algorithm>
#include <string>

#include "graph/vulkan/shader_library.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera {

const ShaderBinary* find_shader(std::string_view name) {
    for (const ShaderBinary& s : shader_binaries())
        if (s.name == name) return &s;
    return nullptr;
}

PipelineCache::PipelineCache(VulkanDevice& device) : device_(device) {}

PipelineCache::~PipelineCache() {
    VkDevice d = device_.device();
    for (auto& [key, p] : pipelines_) vk::vkDestroyPipeline(d, p.pipeline, nullptr);
    for (auto& [name, m] : modules_) vk::vkDestroyShaderModule(d, m, nullptr);
    for (auto& [n, l] : layouts_) {
        vk::vkDestroyPipelineLayout(d, l.second, nullptr);
        vk::vkDestroyDescriptorSetLayout(d, l.first, nullptr);
    }
}

const Pipeline& PipelineCache::get(std::string_view shader, uint32_t n_bindings, const std::vector<uint32_t>& spec) {
    std::lock_guard lock(mutex_);
    auto key = std::make_pair(std::string(shader), spec);
    if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;
    VkDevice d = device_.device();

    auto& [set_layout, layout] = layouts_[n_bindings];
    if (layout == VK_NULL_HANDLE) {
        std::vector<VkDescriptorSetLayoutBinding> bindings(n_bindings);
        for (uint32_t i = 0; i < n_bindings; ++i)
            bindings[i] = {.binding = i,
                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                           .descriptorCount = 1,
                           .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
        VkDescriptorSetLayoutCreateInfo set_info{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                 .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR,
                                                 .bindingCount = n_bindings,
                                                 .pBindings = bindings.data()};
        vk::check(vk::vkCreateDescriptorSetLayout(d, &set_info, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
        VkPushConstantRange push{.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = kMaxPushBytes};
        VkPipelineLayoutCreateInfo layout_info{.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                               .setLayoutCount = 1,
                                               .pSetLayouts = &set_layout,
                                               .pushConstantRangeCount = 1,
                                               .pPushConstantRanges = &push};
        vk::check(vk::vkCreatePipelineLayout(d, &layout_info, nullptr, &layout), "vkCreatePipelineLayout");
    }

    auto module_it = modules_.find(shader);
    if (module_it == modules_.end()) {
        const ShaderBinary* bin = find_shader(shader);
        if (bin == nullptr) throw VulkanError("this build has no Vulkan shader '" + std::string(shader) + "'");
        VkShaderModuleCreateInfo info{.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                      .codeSize = bin->spirv.size_bytes(),
                                      .pCode = bin->spirv.data()};
        VkShaderModule m;
        vk::check(vk::vkCreateShaderModule(d, &info, nullptr, &m), "vkCreateShaderModule");
        module_it = modules_.emplace(std::string(shader), m).first;
    }

    std::vector<VkSpecializationMapEntry> entries(spec.size());
    for (uint32_t i = 0; i < spec.size(); ++i)
        entries[i] = {.constantID = i, .offset = i * 4, .size = 4};
    VkSpecializationInfo spec_info{.mapEntryCount = uint32_t(entries.size()),
                                   .pMapEntries = entries.data(),
                                   .dataSize = spec.size() * 4,
                                   .pData = spec.data()};
    VkComputePipelineCreateInfo info{
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = device_.info().pipeline_statistics ? VkPipelineCreateFlags(VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR)
                                                    : VkPipelineCreateFlags(0),
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = module_it->second,
                  .pName = "main",
                  .pSpecializationInfo = spec.empty() ? nullptr : &spec_info},
        .layout = layout};
    Pipeline p{.layout = layout, .n_bindings = n_bindings};
    vk::check(vk::vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &info, nullptr, &p.pipeline),
              ("vkCreateComputePipelines(" + std::string(shader) + ")").c_str());
    return pipelines_.emplace(std::move(key), p).first->second;
}

namespace {

std::string statistic_value(const VkPipelineExecutableStatisticKHR& s) {
    switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "true" : "false";
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(s.value.i64);
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(s.value.u64);
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: return std::to_string(s.value.f64);
        default: return "?";
    }
}

}  // namespace

bool PipelineCache::created(std::string_view shader) {
    std::lock_guard lock(mutex_);
    return std::any_of(pipelines_.begin(), pipelines_.end(), [&](const auto& p) { return p.first.first == shader; });
}

std::vector<PipelineCache::Statistics> PipelineCache::statistics() {
    std::lock_guard lock(mutex_);
    std::vector<Statistics> out;
    if (!device_.info().pipeline_statistics || vk::vkGetPipelineExecutablePropertiesKHR == nullptr ||
        vk::vkGetPipelineExecutableStatisticsKHR == nullptr)
        return out;
    VkDevice d = device_.device();
    for (const auto& [key, p] : pipelines_) {
        Statistics entry{.shader = key.first, .spec = key.second};
        const VkPipelineInfoKHR pipeline{.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = p.pipeline};
        uint32_t executables = 0;
        vk::check(vk::vkGetPipelineExecutablePropertiesKHR(d, &pipeline, &executables, nullptr),
                  "vkGetPipelineExecutablePropertiesKHR");
        for (uint32_t e = 0; e < executables; ++e) {
            const VkPipelineExecutableInfoKHR executable{
                .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = p.pipeline, .executableIndex = e};
            uint32_t n = 0;
            vk::check(vk::vkGetPipelineExecutableStatisticsKHR(d, &executable, &n, nullptr),
                      "vkGetPipelineExecutableStatisticsKHR");
            std::vector<VkPipelineExecutableStatisticKHR> stats(
                n, VkPipelineExecutableStatisticKHR{.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
            vk::check(vk::vkGetPipelineExecutableStatisticsKHR(d, &executable, &n, stats.data()),
                      "vkGetPipelineExecutableStatisticsKHR");
            for (const auto& s : stats) entry.values.emplace_back(s.name, statistic_value(s));
        }
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace tessera
