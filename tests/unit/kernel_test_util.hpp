// Shared by the CPU kernel tests: row sizes that exercise vector tails,
// reproducible inputs and the error measure of the tolerances.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/simd/archs.hpp"
#include "kernels/simd/dispatch.hpp"

namespace tessera::test {

// Tails of every vector width and non-powers of two.
inline constexpr int64_t kRowSizes[] = {1, 3, 7, 17, 33, 64, 65, 1000, 4099};

inline std::vector<float> random_row(int64_t n, uint32_t seed, float lo = -4.0f, float hi = 4.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> row(static_cast<size_t>(n));
    for (auto& v : row) v = dist(rng);
    return row;
}

// Calls f(arch) for every arch of this build that the CPU runs (in a portable
// build on an AVX-512 VNNI machine: AVX-512 with and without VNNI, AVX2 and
// SSE4.2), then for the scalar
// fallback, so each instantiation of a kernel functor is tested.
template <class F>
void for_each_cpu_arch(F&& f) {
    [&]<class... Archs>(xsimd::arch_list<Archs...>) {
        ((!std::is_same_v<Archs, simd::Scalar> && simd::runs_here<Archs>() ? f(Archs{}) : void()), ...);
    }(simd::CpuArchs{});
    f(simd::Scalar{});
}

// sum((ref - got)^2) / sum(ref^2), the normalized mean squared error of
// llama.cpp's backend tests; 0 for an exact match of an all-zero row.
inline double nmse(const std::vector<double>& ref, const float* got) {
    double err = 0.0, norm = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
        err += (ref[i] - got[i]) * (ref[i] - got[i]);
        norm += ref[i] * ref[i];
    }
    if (err == 0.0) return 0.0;
    return err / norm;
}

// The same against a float reference (an op's reference, rounded once).
inline double nmse(const std::vector<float>& ref, const float* got) {
    return nmse(std::vector<double>(ref.begin(), ref.end()), got);
}

// Tracks the largest NMSE of a test and records it in the test report
// (--gtest_output=xml), where docs/cpu-kernels.md takes its measured values from.
class MaxNmse {
public:
    void add(double value) { max_ = std::max(max_, value); }
    double value() const { return max_; }
    ~MaxNmse() {
        std::ostringstream text;
        text << max_;
        ::testing::Test::RecordProperty("max_nmse", text.str());
    }

private:
    double max_ = 0.0;
};

}  // namespace tessera::test
