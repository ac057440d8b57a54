// The Vulkan backend's block layout (kernels/quant/gpu_layout.hpp): each
// block's bytes land where the type's GLSL part reads them.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "graph_test_util.hpp"
#include "kernels/quant/gpu_layout.hpp"

namespace tessera {
namespace {

std::vector<uint8_t> random_blocks(const QuantTypeEntry& type, size_t blocks) {
    const int64_t n = int64_t(blocks * type.traits.block_elems);
    std::vector<uint8_t> bytes(type.row_bytes(n));
    type.quantize(test::random_floats(size_t(n), 7).data(), bytes.data(), n);
    return bytes;
}

TEST(GpuLayout, GroupsPlanesThenTheRestAndPadsTheLastGroup) {
    bool any = false;
    for (const QuantTypeEntry& type : enabled_quant_types()) {
        const auto [n, offset, plane] = type.gpu_groups;
        if (n == 1) continue;
        any = true;
        const size_t block = type.traits.block_bytes, rest = block - plane;
        const size_t blocks = 2 * n + 3;  // a partial last group
        const std::vector<uint8_t> src = random_blocks(type, blocks);
        std::vector<uint8_t> dst(gpu_layout_bytes(type, src.size()), 0xAB);
        ASSERT_EQ(dst.size(), 3 * n * block) << type.traits.name;
        to_gpu_layout(type, src.data(), src.size(), dst.data());
        for (size_t b = 0; b < 3 * n; ++b) {
            const uint8_t* group = dst.data() + b / n * n * block;
            const uint8_t* in_plane = group + b % n * plane;
            const uint8_t* in_rest = group + n * plane + b % n * rest;
            std::vector<uint8_t> rebuilt(block, 0);
            std::memcpy(rebuilt.data() + offset, in_plane, plane);
            std::memcpy(rebuilt.data(), in_rest, offset);
            std::memcpy(rebuilt.data() + offset + plane, in_rest + offset, block - offset - plane);
            const std::vector<uint8_t> expected =
                b < blocks ? std::vector<uint8_t>(src.begin() + long(b * block), src.begin() + long((b + 1) * block))
                           : std::vector<uint8_t>(block, 0);  // padding
            EXPECT_EQ(rebuilt, expected) << type.traits.name << " block " << b;
        }
        // The planes are 16-byte aligned within a group (so a 16-byte aligned group start keeps them aligned).
        EXPECT_EQ(plane % 16, 0u) << type.traits.name;
        EXPECT_EQ(n * block % 16, 0u) << type.traits.name;
    }
    if (!any) GTEST_SKIP() << "no enabled type is regrouped on the GPU";
}

TEST(GpuLayout, TypesWithoutGroupsKeepTheirBytes) {
    for (const QuantTypeEntry& type : enabled_quant_types()) {
        if (type.gpu_groups.group_blocks != 1 || type.traits.block_elems == 1) continue;
        const std::vector<uint8_t> src = random_blocks(type, 5);
        std::vector<uint8_t> dst(gpu_layout_bytes(type, src.size()));
        ASSERT_EQ(dst.size(), src.size()) << type.traits.name;
        to_gpu_layout(type, src.data(), src.size(), dst.data());
        EXPECT_EQ(dst, src) << type.traits.name;
    }
}

}  // namespace
}  // namespace tessera
