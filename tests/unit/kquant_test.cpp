// Tests specific to the K-quant types and IQ4_XS (the per-type suite in
// quant_types_test.cpp covers goldens, accuracy and dots of every type): the
// packing of sub-block scales, the Q8_K activation quantizer, and integer dot
// sums at the extremes of the formats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/quant/kquant_common.hpp"
#include "kernels/quant/types/iq4_xs.hpp"
#include "kernels/quant/types/q2_k.hpp"
#include "kernels/quant/types/q3_k.hpp"
#include "kernels/quant/types/q4_k.hpp"
#include "kernels/quant/types/q5_k.hpp"
#include "kernels/quant/types/q6_k.hpp"
#include "kernels/quant/types/q8_k.hpp"

namespace tessera {
namespace {

TEST(KQuant, ScaleMinPackingRoundTrips) {
    std::mt19937 rng(1);
    for (int trial = 0; trial < 1000; ++trial) {
        std::array<kquant::ScaleMin, 8> values;
        for (auto& v : values) v = {uint8_t(rng() % 64), uint8_t(rng() % 64)};
        uint8_t packed[12];
        kquant::pack_scale_min(values, packed);
        for (int j = 0; j < 8; ++j) {
            const auto [scale, min] = kquant::unpack_scale_min(packed, j);
            ASSERT_EQ(scale, values[j].scale) << "scale " << j;
            ASSERT_EQ(min, values[j].min) << "min " << j;
        }
    }
}

TEST(KQuant, Q3KScalePackingRoundTrips) {
    std::mt19937 rng(2);
    for (int trial = 0; trial < 1000; ++trial) {
        std::array<int, 16> scales;
        for (auto& s : scales) s = int(rng() % 64) - 32;
        uint8_t packed[12];
        Q3_K::pack_scales(scales, packed);
        for (int j = 0; j < 16; ++j) ASSERT_EQ(Q3_K::scale(packed, j), scales[j]) << "scale " << j;
    }
}

Q8_K::Block quantize_q8_k(const std::vector<float>& x) {
    Q8_K::Block b;
    Q8_K::quantize(x.data(), b);
    return b;
}

TEST(KQuant, Q8KMapsLargestMagnitudeToMinus127) {
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (const float largest : {5.0f, -5.0f}) {
        std::vector<float> x(256);
        for (auto& v : x) v = std::fmax(-4.0f, std::fmin(4.0f, dist(rng)));
        x[77] = largest;
        const auto b = quantize_q8_k(x);
        EXPECT_EQ(b.qs[77], -127) << largest;
        EXPECT_EQ(b.d, 1.0f / (-127.0f / largest)) << largest;
        for (int i = 0; i < 256; ++i)
            EXPECT_LE(std::fabs(b.d * b.qs[i] - x[i]), 0.5f * std::fabs(b.d) * 1.0001f) << "value " << i;
    }
}

TEST(KQuant, Q8KRoundsHalfToEven) {
    std::vector<float> x(256, 0.0f);
    x[0] = -127.0f;  // scale 1: values are rounded as they are
    x[1] = 2.5f;
    x[2] = 3.5f;
    x[3] = -2.5f;
    x[4] = 0.5f;
    x[5] = 126.5f;
    const auto b = quantize_q8_k(x);
    EXPECT_EQ(b.d, 1.0f);
    EXPECT_EQ(b.qs[1], 2);
    EXPECT_EQ(b.qs[2], 4);
    EXPECT_EQ(b.qs[3], -2);
    EXPECT_EQ(b.qs[4], 0);
    EXPECT_EQ(b.qs[5], 126);
}

TEST(KQuant, Q8KGroupSums) {
    std::mt19937 rng(4);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> x(256);
    for (auto& v : x) v = dist(rng);
    const auto b = quantize_q8_k(x);
    for (int g = 0; g < 16; ++g) {
        int sum = 0;
        for (int i = 16 * g; i < 16 * g + 16; ++i) sum += b.qs[i];
        EXPECT_EQ(b.bsums[g], sum) << "group " << g;
    }
}

TEST(KQuant, Q8KZeroBlock) {
    const auto b = quantize_q8_k(std::vector<float>(256, 0.0f));
    EXPECT_EQ(b.d, 0.0f);
    for (int i = 0; i < 256; ++i) EXPECT_EQ(b.qs[i], 0);
    for (int g = 0; g < 16; ++g) EXPECT_EQ(b.bsums[g], 0);
}

template <class T>
class KQuantWeightTest : public ::testing::Test {};
struct TypeName {
    template <class T>
    static std::string GetName(int) {
        return std::string(T::name);
    }
};
using KQuantWeightTypes = ::testing::Types<Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS>;
TYPED_TEST_SUITE(KQuantWeightTest, KQuantWeightTypes, TypeName);

// Blocks whose bytes are all one pattern (with d = dmin = 1) reach the largest
// codes and scales of each format; with activations of +-127 the integer sums
// are at their largest, and must still match the float product.
TYPED_TEST(KQuantWeightTest, DotOfExtremeBlocksMatchesDequantizedProduct) {
    using T = TypeParam;
    for (const uint8_t pattern : {0x00, 0xFF, 0x80, 0x7F, 0xAA, 0x55}) {
        typename T::Block w;
        std::memset(&w, pattern, sizeof(w));
        w.d = fp32_to_fp16(1.0f);
        if constexpr (requires { w.dmin; }) w.dmin = fp32_to_fp16(1.0f);
        for (const int8_t a_value : {int8_t(127), int8_t(-127)}) {
            Q8_K::Block a;
            a.d = 1.0f;
            std::memset(a.qs, a_value, sizeof(a.qs));
            for (auto& s : a.bsums) s = int16_t(16 * a_value);
            float w_values[256], a_values[256];
            T::dequantize(w, w_values);
            Q8_K::dequantize(a, a_values);
            double expected = 0.0;
            for (int i = 0; i < 256; ++i) expected += double(w_values[i]) * a_values[i];
            EXPECT_NEAR(T::dot(&w, &a, 1), expected, 1e-6 * std::fabs(expected) + 1e-3)
                << T::name << ", bytes 0x" << std::hex << int(pattern) << std::dec << ", activations " << int(a_value);
        }
    }
}

}  // namespace
}  // namespace tessera
