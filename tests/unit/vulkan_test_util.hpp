// Vulkan backend for tests: a test that needs a device skips with the reason
// when there is none, unless TESSERA_REQUIRE_VULKAN is set (CI sets it, with
// lavapipe installed, so that a broken Vulkan setup fails instead of skipping).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "graph/vulkan/vulkan_backend.hpp"
#include "graph/vulkan/vulkan_error.hpp"

namespace tessera::test {

// The backend, or nullptr with `why` set.
inline std::shared_ptr<VulkanBackend> try_vulkan_backend(std::string& why) {
    try {
        return std::make_shared<VulkanBackend>();
    } catch (const VulkanUnavailable& e) {
        why = e.what();
        return nullptr;
    }
}

inline bool vulkan_required() { return std::getenv("TESSERA_REQUIRE_VULKAN") != nullptr; }

}  // namespace tessera::test

// Declares `var`, a std::shared_ptr<VulkanBackend>, or skips (fails when
// TESSERA_REQUIRE_VULKAN is set) the test.
#define TESSERA_VULKAN_OR_SKIP(var)                                                        \
    std::string var##_why;                                                                 \
    auto var = ::tessera::test::try_vulkan_backend(var##_why);                             \
    if (!var) {                                                                            \
        if (::tessera::test::vulkan_required()) FAIL() << "no Vulkan device: " << var##_why; \
        GTEST_SKIP() << "no Vulkan device: " << var##_why;                                 \
    }
