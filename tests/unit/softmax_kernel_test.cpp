#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/softmax.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-6;  // llama.cpp test-backend-ops for soft_max
constexpr float kInf = std::numeric_limits<float>::infinity();

// The scores v = scale * x + mask are float32 values (rounded as the op
// defines them, like llama.cpp); exp, sum and division are done in double.
std::vector<double> reference(const std::vector<float>& x, float scale, int64_t n_valid, const float* mask) {
    std::vector<double> y(x.size(), 0.0);
    double max = -INFINITY;
    for (int64_t i = 0; i < n_valid; ++i) {
        const float v = x[size_t(i)] * scale + (mask ? mask[i] : 0.0f);
        y[size_t(i)] = v;
        max = std::max(max, y[size_t(i)]);
    }
    if (max == -INFINITY) return std::vector<double>(x.size(), 0.0);
    double sum = 0.0;
    for (int64_t i = 0; i < n_valid; ++i) sum += y[size_t(i)] = std::exp(y[size_t(i)] - max);
    for (int64_t i = 0; i < n_valid; ++i) y[size_t(i)] /= sum;
    return y;
}

// A causal mask row: 0 up to and including `last`, -inf after.
std::vector<float> causal_mask(int64_t n, int64_t last) {
    std::vector<float> mask(size_t(n), 0.0f);
    for (int64_t i = last + 1; i < n; ++i) mask[size_t(i)] = -kInf;
    return mask;
}

TEST(SoftmaxKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        const auto x = random_row(n, uint32_t(n), -10.0f, 10.0f);
        const auto mask = causal_mask(n, n / 2);
        for (int64_t n_valid : {int64_t(1), (n + 1) / 2, n}) {
            for (const float* m : {static_cast<const float*>(nullptr), mask.data()}) {
                const float scale = 0.125f;
                const auto ref = reference(x, scale, n_valid, m);
                std::vector<float> y(size_t(n), 42.0f);
                cpu::softmax(x.data(), y.data(), n, scale, n_valid, m);
                worst.add(nmse(ref, y.data()));
                EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "n=" << n << " n_valid=" << n_valid;
                for (int64_t i = n_valid; i < n; ++i) ASSERT_EQ(y[size_t(i)], 0.0f) << i;

                test::for_each_cpu_arch([&](auto arch) {
                    y.assign(size_t(n), 42.0f);
                    cpu::Softmax{}(arch, x.data(), y.data(), n, scale, n_valid, m);
                    worst.add(nmse(ref, y.data()));
                    EXPECT_LE(nmse(ref, y.data()), kMaxNmse)
                        << decltype(arch)::name() << " n=" << n << " n_valid=" << n_valid;
                    for (int64_t i = n_valid; i < n; ++i) ASSERT_EQ(y[size_t(i)], 0.0f) << i;
                });
            }
        }
    }
}

TEST(SoftmaxKernel, InPlace) {
    for (int64_t n : kRowSizes) {
        const auto x = random_row(n, 21, -5.0f, 5.0f);
        std::vector<float> y = x;
        cpu::softmax(y.data(), y.data(), n, 1.0f, n, nullptr);
        EXPECT_LE(nmse(reference(x, 1.0f, n, nullptr), y.data()), kMaxNmse) << "n=" << n;
    }
}

// Scores far beyond exp's range only work with the maximum subtracted first.
TEST(SoftmaxKernel, LargeMagnitudes) {
    for (auto [lo, hi, scale] : {std::tuple{80.0f, 100.0f, 1.0f}, std::tuple{-1e4f, 1e4f, 1.0f},
                                 std::tuple{-1e30f, 1e30f, 1e-8f}, std::tuple{-200.0f, -100.0f, 1.0f}}) {
        for (int64_t n : {int64_t(17), int64_t(1000)}) {
            const auto x = random_row(n, 4, lo, hi);
            std::vector<float> y(static_cast<size_t>(n));
            cpu::softmax(x.data(), y.data(), n, scale, n, nullptr);
            EXPECT_LE(nmse(reference(x, scale, n, nullptr), y.data()), kMaxNmse) << lo << " " << hi;
        }
    }
}

// Rows with nothing to weigh are all zeros, never nan; values past n_valid
// (even nan) do not matter.
TEST(SoftmaxKernel, EmptyAndFullyMaskedRowsAreZero) {
    for (int64_t n : {int64_t(1), int64_t(17), int64_t(65)}) {
        std::vector<float> x = random_row(n, 8);
        const std::vector<float> all_masked(size_t(n), -kInf);
        std::vector<float> y(size_t(n), 42.0f);
        cpu::softmax(x.data(), y.data(), n, 1.0f, n, all_masked.data());
        for (float v : y) ASSERT_EQ(v, 0.0f);
        y.assign(size_t(n), 42.0f);
        cpu::softmax(x.data(), y.data(), n, 1.0f, 0, nullptr);
        for (float v : y) ASSERT_EQ(v, 0.0f);

        x.assign(size_t(n), std::numeric_limits<float>::quiet_NaN());
        x[0] = 3.0f;
        cpu::softmax(x.data(), y.data(), n, 1.0f, 1, nullptr);
        EXPECT_EQ(y[0], 1.0f);
        for (int64_t i = 1; i < n; ++i) ASSERT_EQ(y[size_t(i)], 0.0f);
    }
}

TEST(SoftmaxKernel, RejectsValidCountOutsideTheRow) {
    std::vector<float> x(8);
    EXPECT_THROW(cpu::softmax(x.data(), x.data(), 8, 1.0f, 9, nullptr), Error);
    EXPECT_THROW(cpu::softmax(x.data(), x.data(), 8, 1.0f, -1, nullptr), Error);
}

}  // namespace
}  // namespace tessera
