#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/convert.hpp"
#include "kernels/quant/half.hpp"
#include "kernels/quant/registry.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

std::vector<uint32_t> bits_of(const std::vector<float>& v) {
    std::vector<uint32_t> bits(v.size());
    std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
    return bits;
}

// Floats where fp16 rounding can go wrong: zeros, infinities, nans (quiet,
// signaling, payload only in the bits fp16 drops), the overflow threshold,
// subnormal ties, and for every fp16 value the midpoint to its successor
// with its neighbours (ties to even, both signs); then random bit patterns.
std::vector<float> f16_rounding_cases() {
    std::vector<uint32_t> bits = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                  0x7f800001u, 0x7fa00000u, 0xff800fffu, 0x7fbfffffu, 0x7fffffffu, 0x477fefffu,
                                  0x477ff000u, 0x477ff001u, 0x7f7fffffu, 0x33000000u, 0x33000001u, 0x32ffffffu,
                                  0x33c00000u, 0x387fc000u, 0x387fe000u, 0x38800000u, 0x00000001u, 0x807fffffu};
    for (uint32_t h = 0; h < 0x7c00; ++h) {
        const float lo = fp16_to_fp32(uint16_t(h)), hi = fp16_to_fp32(uint16_t(h + 1));
        const uint32_t mid = std::bit_cast<uint32_t>(float((double(lo) + double(hi)) / 2));
        for (uint32_t m : {mid - 1, mid, mid + 1}) {
            bits.push_back(m);
            bits.push_back(m | 0x80000000u);
        }
    }
    std::mt19937 rng(1);
    for (int i = 0; i < 200000; ++i) bits.push_back(rng());
    std::vector<float> values(bits.size());
    std::memcpy(values.data(), bits.data(), bits.size() * sizeof(float));
    return values;
}

TEST(ConvertKernel, F32ToF16IsBitExact) {
    const auto values = f16_rounding_cases();
    const int64_t n = int64_t(values.size());
    std::vector<uint16_t> expected(values.size());
    for (size_t i = 0; i < values.size(); ++i) expected[i] = fp32_to_fp16(values[i]);
    std::vector<uint16_t> got(values.size());
    cpu::convert_f32_to(GgmlType::F16, values.data(), got.data(), n);
    for (size_t i = 0; i < values.size(); ++i)
        ASSERT_EQ(got[i], expected[i]) << std::hex << "f32 bits " << std::bit_cast<uint32_t>(values[i]);
    test::for_each_cpu_arch([&](auto arch) {
        got.assign(got.size(), 0);
        cpu::F32ToF16{}(arch, values.data(), got.data(), n);
        EXPECT_EQ(got, expected) << decltype(arch)::name();
    });
    // Every row length up to two AVX-512 vectors plus a tail, from every start offset of a vector.
    for (int64_t offset = 0; offset < 16; ++offset) {
        for (int64_t len = 0; len <= 40; ++len) {
            std::vector<uint16_t> row(size_t(len) + 1, 0xabcd);
            cpu::convert_f32_to(GgmlType::F16, values.data() + offset, row.data(), len);
            for (int64_t i = 0; i < len; ++i) ASSERT_EQ(row[size_t(i)], expected[size_t(offset + i)]);
            ASSERT_EQ(row[size_t(len)], 0xabcd) << "wrote past the row";
        }
    }
}

// All 65536 fp16 patterns, each at every lane position and in vector-width
// tails (the patterns are consecutive, so chunks hold inf/nan mixed with finite values).
TEST(ConvertKernel, F16AndBf16ToF32AreBitExact) {
    for (const auto& entry : {std::pair{GgmlType::F16, &fp16_to_fp32}, std::pair{GgmlType::BF16, &bf16_to_fp32}}) {
        const GgmlType type = entry.first;  // not a structured binding: clang 14 cannot capture those
        const auto ref = entry.second;
        std::vector<uint16_t> all(0x10000 + 16);
        for (size_t i = 0; i < all.size(); ++i) all[i] = uint16_t(i);
        for (int64_t offset : {0, 1, 7}) {
            const int64_t n = 0x10000 + 16 - offset - offset % 5;
            std::vector<float> expected(static_cast<size_t>(n)), got(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) expected[size_t(i)] = ref(all[size_t(offset + i)]);
            cpu::convert_to_f32(type, all.data() + offset, got.data(), n);
            ASSERT_EQ(bits_of(got), bits_of(expected)) << ggml_type_traits(type).name << " offset " << offset;
        }
        std::vector<float> expected(all.size()), got(all.size());
        for (size_t i = 0; i < all.size(); ++i) expected[i] = ref(all[i]);
        test::for_each_cpu_arch([&](auto arch) {
            got.assign(got.size(), 0.0f);
            if (type == GgmlType::F16)
                cpu::F16ToF32{}(arch, all.data(), got.data(), int64_t(all.size()));
            else
                cpu::Bf16ToF32{}(arch, all.data(), got.data(), int64_t(all.size()));
            EXPECT_EQ(bits_of(got), bits_of(expected)) << decltype(arch)::name() << " " << ggml_type_traits(type).name;
        });
    }
}

TEST(ConvertKernel, F32AndBf16FromF32AreBitExact) {
    const auto values = f16_rounding_cases();
    const int64_t n = int64_t(values.size());
    std::vector<float> copy(values.size());
    cpu::convert_f32_to(GgmlType::F32, values.data(), copy.data(), n);
    EXPECT_EQ(bits_of(copy), bits_of(values));
    copy.assign(copy.size(), 0.0f);
    cpu::convert_to_f32(GgmlType::F32, values.data(), copy.data(), n);
    EXPECT_EQ(bits_of(copy), bits_of(values));

    std::vector<uint16_t> bf16(values.size());
    cpu::convert_f32_to(GgmlType::BF16, values.data(), bf16.data(), n);
    for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(bf16[i], fp32_to_bf16(values[i])) << i;
}

// Quantized types go through the build's registry: the same bytes as its
// quantizer, the same floats as its dequantizer (the embedding lookup).
TEST(ConvertKernel, QuantTypesMatchTheRegistry) {
    for (const QuantTypeEntry& type : enabled_quant_types()) {
        const GgmlType id = type.traits.id;
        if (id == GgmlType::F32 || id == GgmlType::F16 || id == GgmlType::BF16) continue;
        const int64_t n = 3 * int64_t(type.traits.block_elems);
        const auto x = test::random_row(n, 17, -2.0f, 2.0f);
        std::vector<uint8_t> expected(type.row_bytes(n)), got(expected.size());
        type.quantize(x.data(), expected.data(), n);
        cpu::convert_f32_to(id, x.data(), got.data(), n);
        EXPECT_EQ(got, expected) << type.traits.name;

        std::vector<float> expected_f32(static_cast<size_t>(n)), got_f32(static_cast<size_t>(n));
        type.dequantize(expected.data(), expected_f32.data(), n);
        cpu::convert_to_f32(id, expected.data(), got_f32.data(), n);
        EXPECT_EQ(bits_of(got_f32), bits_of(expected_f32)) << type.traits.name;
    }
}

TEST(ConvertKernel, ErrorsNameTheProblem) {
    std::vector<float> f32(512);
    std::vector<uint8_t> bytes(4096);
    try {
        cpu::convert_to_f32(GgmlType::IQ2_XXS, bytes.data(), f32.data(), 256);
        FAIL() << "no error for a type without kernels";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("IQ2_XXS"), std::string::npos) << e.what();
    }
    EXPECT_THROW(cpu::convert_f32_to(GgmlType::F16, f32.data(), bytes.data(), -1), Error);
    EXPECT_THROW(cpu::convert_to_f32(GgmlType::F32, bytes.data(), f32.data(), -1), Error);
    if (find_quant_type(GgmlType::Q8_0)) {
        EXPECT_THROW(cpu::convert_f32_to(GgmlType::Q8_0, f32.data(), bytes.data(), 33), Error);
        EXPECT_THROW(cpu::convert_to_f32(GgmlType::Q8_0, bytes.data(), f32.data(), 33), Error);
    }
}

}  // namespace
}  // namespace tessera
