// Errors of the Vulkan backend, each one of the backend-neutral kinds of
// graph/backend.hpp, which is what callers outside the backend catch:
// VulkanUnavailable (no loader, no device, a device without the features
// tessera needs) is a BackendUnavailable, VulkanOutOfMemory a
// BackendOutOfMemory, and VulkanError any other failure of a device that
// was opened.
#pragma once

#include "graph/backend.hpp"

namespace tessera {

class VulkanError : public BackendError {
public:
    using BackendError::BackendError;
};

class VulkanUnavailable : public BackendUnavailable {
public:
    using BackendUnavailable::BackendUnavailable;
};

class VulkanOutOfMemory : public BackendOutOfMemory {
public:
    using BackendOutOfMemory::BackendOutOfMemory;
};

}  // namespace tessera
