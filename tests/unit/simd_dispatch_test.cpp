#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/dot_f32.hpp"
#include "kernels/simd/archs.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera {
namespace {

TEST(SimdDispatch, PicksAnArchOfTheBuild) {
    const std::string name(simd::active_arch_name());
    bool listed = false;
    [&]<class... Archs>(xsimd::arch_list<Archs...>) {
        ((listed = listed || name == Archs::name() ||
                   (simd::has_vnni<Archs> && name == std::string(Archs::name()) + "+vnni")),
         ...);
    }(simd::CpuArchs{});
    EXPECT_TRUE(listed) << name;
}

// Archs that run where the test says: I is their position, the value the functor returns.
template <int I, bool Runs>
struct FakeArch {
    static bool available() { return Runs; }
    static constexpr unsigned version() { return 0; }
    static constexpr char const* name() { return "fake"; }
};

struct ArchIndex {
    template <int I, bool Runs>
    int operator()(FakeArch<I, Runs>, int offset) const {
        return I + offset;
    }
};

TEST(SimdDispatch, PicksTheFirstArchThatRuns) {
    using First = xsimd::arch_list<FakeArch<0, true>, FakeArch<1, true>, FakeArch<2, true>>;
    EXPECT_EQ(simd::dispatch<First>(ArchIndex{})(10), 10);
    using Second = xsimd::arch_list<FakeArch<0, false>, FakeArch<1, true>, FakeArch<2, true>>;
    EXPECT_EQ(simd::dispatch<Second>(ArchIndex{})(10), 11);
    EXPECT_EQ(simd::dispatch<Second>(ArchIndex{}).chosen(), 1u);
    // The last arch is the fallback, taken where none before it runs.
    using Last = xsimd::arch_list<FakeArch<0, false>, FakeArch<1, false>, FakeArch<2, false>>;
    EXPECT_EQ(simd::dispatch<Last>(ArchIndex{})(10), 12);
}

// xsimd's archs answer available() with a constant true; runs_here asks the CPU.
TEST(SimdDispatch, AsksTheCpuAboutXsimdArchs) {
    EXPECT_EQ(simd::runs_here<xsimd::sse4_2>(), bool(__builtin_cpu_supports("sse4.2")));
    EXPECT_EQ(simd::runs_here<xsimd::avx512bw>(),
              __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                  __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"));
    EXPECT_TRUE(simd::runs_here<simd::Scalar>());
}

TEST(SimdDispatch, Avx512VnniRunsWhereTheCpuHasVnni) {
    const bool vnni = simd::runs_here<xsimd::avx512bw>() && __builtin_cpu_supports("avx512vnni");
    EXPECT_EQ(simd::Avx512Vnni::available(), vnni);
    EXPECT_EQ(simd::runs_here<simd::Avx512Vnni>(), vnni);
}

// The portable build runs the best arch it has for this CPU; the native
// build its one arch, with VNNI code where -march=native has VNNI.
TEST(SimdDispatch, ActiveArchIsTheBestForThisCpu) {
    const std::string name(simd::active_arch_name());
#ifdef TESSERA_PORTABLE
    const char* best = simd::Avx512Vnni::available()                ? "avx512vnni"
                       : simd::runs_here<xsimd::avx512bw>()         ? "avx512bw"
                       : simd::runs_here<xsimd::fma3<xsimd::avx2>>() ? "fma3<avx2>"
                       : simd::runs_here<xsimd::sse4_2>()           ? "sse4_2"
                                                                    : "scalar";
    EXPECT_EQ(name, best);
    EXPECT_EQ(simd::active_arch_has_vnni(), simd::Avx512Vnni::available());
#else
#if defined(__AVX512VNNI__) && defined(__AVX512BW__)
    EXPECT_EQ(name, std::string(xsimd::default_arch::name()) + "+vnni");
    EXPECT_TRUE(simd::active_arch_has_vnni());
#else
    EXPECT_EQ(name, xsimd::default_arch::name());
    EXPECT_FALSE(simd::active_arch_has_vnni());
#endif
#endif
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
