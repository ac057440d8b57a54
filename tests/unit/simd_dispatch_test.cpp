#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/dot_f32.hpp"
#include "kernels/simd/archs.hpp"

namespace tessera {
namespace {

TEST(SimdDispatch, PicksAnArchOfTheBuild) {
    const std::string name(simd::active_arch_name());
    bool listed = false;
    [&]<class... Archs>(xsimd::arch_list<Archs...>) {
        ((listed = listed || name == Archs::name()), ...);
    }(simd::CpuArchs{});
    EXPECT_TRUE(listed) << name;
}

// The dispatched kernel agrees with the scalar fallback for lengths around every vector-width boundary.
TEST(SimdDispatch, DotF32MatchesScalar) {
    std::mt19937 rng(7);
    std::normal_distribution<float> dist;
    for (size_t n : {0u, 1u, 3u, 15u, 16u, 17u, 63u, 64u, 65u, 257u, 1000u}) {
        std::vector<float> a(n), b(n);
        for (auto& v : a) v = dist(rng);
        for (auto& v : b) v = dist(rng);
        double exact = 0.0, magnitude = 0.0;
        for (size_t i = 0; i < n; ++i) {
            exact += double(a[i]) * b[i];
            magnitude += std::fabs(double(a[i]) * b[i]);
        }
        const float scalar = cpu::DotF32{}(simd::Scalar{}, a.data(), b.data(), n);
        const float simd = cpu::dot_f32(a.data(), b.data(), n);
        EXPECT_NEAR(simd, exact, 1e-6 * magnitude + 1e-7) << n;
        EXPECT_NEAR(scalar, exact, 1e-6 * magnitude + 1e-7) << n;
    }
}

}  // namespace
}  // namespace tessera
