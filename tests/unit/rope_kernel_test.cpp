#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/rope.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using cpu::RopeMode;
using cpu::RopeParams;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for rope

// RoPE in double: pair i of each head (dims (2i, 2i+1) or (i, i + n_rot/2))
// turns by pos * freq_scale * freq_base^(-2i/n_rot); other dims pass through.
std::vector<double> reference(const std::vector<float>& x, int64_t head_dim, int64_t n_heads, int32_t pos,
                              const RopeParams& p) {
    std::vector<double> y(x.begin(), x.end());
    const int64_t half = p.n_rot / 2;
    for (int64_t h = 0; h < n_heads; ++h) {
        for (int64_t i = 0; i < half; ++i) {
            const double theta =
                double(pos) * double(p.freq_scale) * std::pow(double(p.freq_base), -2.0 * double(i) / p.n_rot);
            const int64_t d0 = h * head_dim + (p.mode == RopeMode::Normal ? 2 * i : i);
            const int64_t d1 = d0 + (p.mode == RopeMode::Normal ? 1 : half);
            const double a = x[size_t(d0)], b = x[size_t(d1)];
            y[size_t(d0)] = a * std::cos(theta) - b * std::sin(theta);
            y[size_t(d1)] = a * std::sin(theta) + b * std::cos(theta);
        }
    }
    return y;
}

struct Shape {
    int64_t head_dim;
    int n_rot;
    int64_t n_heads;
};

// Full rotation (Llama, Qwen2), partial rotation (pass-through dims), pair
// counts that leave vector tails, and long positions.
constexpr Shape kShapes[] = {{128, 128, 4}, {64, 64, 3}, {96, 96, 2}, {80, 32, 3},
                             {34, 34, 1},   {17, 6, 5},  {66, 2, 1},  {7, 0, 2}};
constexpr int32_t kPositions[] = {0, 1, 17, 4095, 32767, 500000};

TEST(RopeKernel, MatchesReference) {
    test::MaxNmse worst;
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (const Shape& s : kShapes) {
            for (int32_t pos : kPositions) {
                for (auto [base, scale] : {std::pair{10000.0f, 1.0f}, std::pair{1000000.0f, 0.25f}}) {
                    const RopeParams p{s.n_rot, base, scale, mode};
                    const auto x = random_row(s.head_dim * s.n_heads, uint32_t(pos + s.head_dim));
                    const auto ref = reference(x, s.head_dim, s.n_heads, pos, p);
                    std::vector<float> y(x.size());
                    cpu::rope(x.data(), y.data(), s.head_dim, s.n_heads, pos, p);
                    const double err = nmse(ref, y.data());
                    worst.add(err);
                    EXPECT_LE(err, kMaxNmse) << "mode " << int(mode) << " head_dim " << s.head_dim << " n_rot "
                                             << s.n_rot << " pos " << pos << " base " << base;
                    for (int64_t h = 0; h < s.n_heads; ++h)
                        for (int64_t d = s.n_rot; d < s.head_dim; ++d)
                            ASSERT_EQ(y[size_t(h * s.head_dim + d)], x[size_t(h * s.head_dim + d)]);
                }
            }
        }
    }
}

// The functors of every arch, with the tables rope() builds: rates -r for the
// first and +r for the second dim of each pair.
TEST(RopeKernel, EveryArchMatchesReference) {
    test::MaxNmse worst;
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (const Shape& s : kShapes) {
            const int64_t n_rot = s.n_rot, half = n_rot / 2;
            const int32_t pos = 4321;
            const RopeParams p{s.n_rot, 10000.0f, 1.0f, mode};
            std::vector<double> rate(static_cast<size_t>(n_rot));
            for (int64_t i = 0; i < half; ++i) {
                const double r = std::pow(10000.0, -2.0 * double(i) / double(n_rot));
                rate[size_t(mode == RopeMode::Normal ? 2 * i : i)] = -r;
                rate[size_t(mode == RopeMode::Normal ? 2 * i + 1 : half + i)] = r;
            }
            const auto x = random_row(s.head_dim * s.n_heads, 3);
            const auto ref = reference(x, s.head_dim, s.n_heads, pos, p);
            test::for_each_cpu_arch([&](auto arch) {
                std::vector<float> cos(rate.size()), sin(rate.size()), y(x.size());
                cpu::RopeAngles{}(arch, double(pos), rate.data(), cos.data(), sin.data(), n_rot);
                cpu::RopeRotate{}(arch, x.data(), y.data(), s.head_dim, s.n_heads, n_rot, mode, cos.data(),
                                  sin.data());
                worst.add(nmse(ref, y.data()));
                EXPECT_LE(nmse(ref, y.data()), kMaxNmse)
                    << decltype(arch)::name() << " mode " << int(mode) << " head_dim " << s.head_dim;
                y = x;
                cpu::RopeRotate{}(arch, y.data(), y.data(), s.head_dim, s.n_heads, n_rot, mode, cos.data(),
                                  sin.data());
                EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << decltype(arch)::name() << " in place";
            });
        }
    }
}

TEST(RopeKernel, InPlace) {
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (const Shape& s : kShapes) {
            const RopeParams p{s.n_rot, 10000.0f, 1.0f, mode};
            const auto x = random_row(s.head_dim * s.n_heads, 9);
            std::vector<float> y = x;
            cpu::rope(y.data(), y.data(), s.head_dim, s.n_heads, 300, p);
            EXPECT_LE(nmse(reference(x, s.head_dim, s.n_heads, 300, p), y.data()), kMaxNmse)
                << int(mode) << " " << s.head_dim << " " << s.n_rot;
        }
    }
}

TEST(RopeKernel, RejectsBadRotationCount) {
    std::vector<float> x(64);
    for (int n_rot : {-2, 3, 66})
        EXPECT_THROW(cpu::rope(x.data(), x.data(), 64, 1, 0, RopeParams{n_rot, 10000.0f, 1.0f, RopeMode::Normal}),
                     Error)
            << n_rot;
}

}  // namespace
}  // namespace tessera
