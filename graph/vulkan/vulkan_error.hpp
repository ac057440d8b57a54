// Errors of the Vulkan backend. VulkanUnavailable (no loader, no device, a
// device without the features tessera needs) lets a caller fall back to the
// CPU; the others are failures of a device that was opened.
#pragma once

#include "support/error.hpp"

namespace tessera {

class VulkanError : public Error {
public:
    using Error::Error;
};

class VulkanUnavailable : public VulkanError {
public:
    using VulkanError::VulkanError;
};

class VulkanOutOfMemory : public VulkanError {
public:
    using VulkanError::VulkanError;
};

}  // namespace tessera
