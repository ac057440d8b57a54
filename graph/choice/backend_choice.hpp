// Which backends a model runs on, from a user's choice (--backend, --device,
// --devices).
//   cpu     the CPU backend
//   vulkan  Vulkan device `device` first, the CPU for nodes it has no kernel
//           for; throws VulkanUnavailable when the device cannot be opened
//   auto    as vulkan when a usable device exists, else the CPU (the notice
//           says why)
// With several devices (a model split by layer, models/layer_split.hpp): one
// Vulkan backend per device in the order given, then the CPU; any device
// that cannot be opened is an error, auto or not, since the user named it. A
// device listed twice gets two backends (two layer ranges on one device: how
// the split is tested on a machine with one).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/backend.hpp"

namespace tessera {

enum class BackendKind { Cpu, Vulkan, Auto };

std::optional<BackendKind> parse_backend_kind(std::string_view name);
std::string_view backend_kind_name(BackendKind kind);

struct BackendSet {
    std::vector<std::shared_ptr<Backend>> backends;  // in order of preference
    std::string notice;                              // for the user, when auto fell back
};

BackendSet make_backends(BackendKind kind, int device, int n_threads);
BackendSet make_backends(BackendKind kind, const std::vector<int>& devices, int n_threads);

}  // namespace tessera
