#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "kernels/quant/half.hpp"

namespace tessera {
namespace {

// Every fp16 bit pattern survives fp16 -> fp32 -> fp16 (nan payloads included).
TEST(Half, EveryFp16RoundTrips) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = fp16_to_fp32(uint16_t(h));
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(fp16_to_fp32(fp32_to_fp16(f))));
            continue;
        }
        ASSERT_EQ(fp32_to_fp16(f), h) << "h=" << h;
    }
}

// Rounding: compare with a double-precision nearest-even search over neighbours.
TEST(Half, RoundsToNearestEven) {
    const float cases[] = {1.0f + 1.0f / 2048.0f,  // exactly half way between 1 and 1+2^-10: to even (1)
                           1.0f + 3.0f / 2048.0f,  // half way, rounds up to even
                           65504.0f, 65519.0f, 65520.0f, 5.9604645e-08f, 2.9802322e-08f, 2.9802323e-08f,
                           -3.1415926f, 1e-6f, 6.1035156e-05f, 6.0975552e-05f};
    for (float f : cases) {
        const uint16_t h = fp32_to_fp16(f);
        const double got = fp16_to_fp32(h);
        if (std::isinf(got)) continue;  // overflow to infinity is checked below
        // No other finite fp16 value is strictly closer.
        for (int delta : {-1, 1}) {
            const uint16_t n = uint16_t(h + delta);
            const double other = fp16_to_fp32(n);
            if (std::isinf(other) || std::isnan(other)) continue;
            EXPECT_LE(std::fabs(got - f), std::fabs(other - f)) << f;
        }
    }
    EXPECT_EQ(fp32_to_fp16(1.0f + 1.0f / 2048.0f), 0x3c00);
    EXPECT_EQ(fp32_to_fp16(1.0f + 3.0f / 2048.0f), 0x3c02);
    EXPECT_EQ(fp32_to_fp16(65520.0f), 0x7c00);  // rounds to infinity
    EXPECT_EQ(fp32_to_fp16(65519.0f), 0x7bff);
    EXPECT_EQ(fp32_to_fp16(2.9802322e-08f), 0x0000);  // exactly half the smallest subnormal: to even (0)
    EXPECT_EQ(fp32_to_fp16(2.9802326e-08f), 0x0001);
}

TEST(Half, Bf16RoundsToNearestEven) {
    EXPECT_EQ(fp32_to_bf16(1.0f), 0x3f80);
    EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie -> even
    EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie -> even (up)
    EXPECT_EQ(fp32_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
    EXPECT_TRUE(std::isnan(bf16_to_fp32(fp32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
    for (uint32_t b = 0; b < 0x10000; ++b) {
        const float f = bf16_to_fp32(uint16_t(b));
        if (!std::isnan(f)) {
            ASSERT_EQ(fp32_to_bf16(f), b);
        }
    }
}

}  // namespace
}  // namespace tessera
