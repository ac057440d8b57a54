#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "graph/cpu/cpu_backend.hpp"
#include "graph/executor.hpp"
#include "graph/reference_backend.hpp"
#include "graph_test_util.hpp"
#include "kernel_test_util.hpp"
#include "kernels/cpu/rope.hpp"
#include "ops/rope.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

using cpu::RopeMode;
using cpu::RopeParams;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for rope

// RoPE in double: pair i of each head (dims (2i, 2i+1) or (i, i + n_rot/2))
// turns by pos * freq_scale * freq_base^(-2i/n_rot) / factors[i] (1 without
// factors); other dims pass through.
std::vector<double> reference(const std::vector<float>& x, int64_t head_dim, int64_t n_heads, int32_t pos,
                              const RopeParams& p, const float* factors = nullptr) {
    std::vector<double> y(x.begin(), x.end());
    const int64_t half = p.n_rot / 2;
    for (int64_t h = 0; h < n_heads; ++h) {
        for (int64_t i = 0; i < half; ++i) {
            const double theta = double(pos) * double(p.freq_scale) *
                                 std::pow(double(p.freq_base), -2.0 * double(i) / p.n_rot) /
                                 (factors ? double(factors[i]) : 1.0);
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

// Divisors as Llama 3.1's rope_freqs holds them: 1 for the fast pairs,
// `slowest` for the slow ones, a ramp between.
std::vector<float> llama3_like_factors(int64_t pairs, float slowest) {
    std::vector<float> f(static_cast<size_t>(pairs));
    for (int64_t i = 0; i < pairs; ++i) {
        const double t = std::clamp((double(i) / double(pairs) - 0.25) / 0.5, 0.0, 1.0);
        f[size_t(i)] = float(1.0 + t * (slowest - 1.0));
    }
    return f;
}

TEST(RopeKernel, FreqFactorsMatchReference) {
    test::MaxNmse worst;
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        for (const Shape& s : kShapes) {
            const auto factors = llama3_like_factors(s.n_rot / 2, 32.0f);
            for (int32_t pos : kPositions) {
                const RopeParams p{s.n_rot, 500000.0f, 0.5f, mode};
                const auto x = random_row(s.head_dim * s.n_heads, uint32_t(pos + 7));
                std::vector<float> y(x.size());
                cpu::rope(x.data(), y.data(), s.head_dim, s.n_heads, pos, p, factors.data());
                const double err = nmse(reference(x, s.head_dim, s.n_heads, pos, p, factors.data()), y.data());
                worst.add(err);
                EXPECT_LE(err, kMaxNmse) << "mode " << int(mode) << " head_dim " << s.head_dim << " n_rot "
                                         << s.n_rot << " pos " << pos;
            }
        }
    }
}

// Factors of 1 change nothing, to the bit; factors of 32 change the result
// (a kernel that ignored them would fail here).
TEST(RopeKernel, FreqFactorsOfOneChangeNothingAndOthersDo) {
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        const RopeParams p{64, 10000.0f, 1.0f, mode};
        const auto x = random_row(64 * 3, 21);
        const std::vector<float> ones(32, 1.0f), thirty_twos(32, 32.0f);
        std::vector<float> plain(x.size()), with_ones(x.size()), with_32(x.size());
        cpu::rope(x.data(), plain.data(), 64, 3, 1029, p);
        cpu::rope(x.data(), with_ones.data(), 64, 3, 1029, p, ones.data());
        cpu::rope(x.data(), with_32.data(), 64, 3, 1029, p, thirty_twos.data());
        EXPECT_EQ(with_ones, plain) << int(mode);
        EXPECT_GT(nmse(reference(x, 64, 3, 1029, p), with_32.data()), 1e-2) << int(mode);
        EXPECT_LE(nmse(reference(x, 64, 3, 1029, p, thirty_twos.data()), with_32.data()), kMaxNmse) << int(mode);
    }
}

// The per-thread tables are not reused across different factors, nor
// between calls with and without them, even at one address.
TEST(RopeKernel, FreqFactorsAreNotCachedStale) {
    const RopeParams p{16, 10000.0f, 1.0f, RopeMode::Normal};
    const auto x = random_row(16 * 2, 5);
    std::vector<float> factors(8, 2.0f), y(x.size());
    auto check = [&](const float* f, const char* what) {
        cpu::rope(x.data(), y.data(), 16, 2, 777, p, f);
        EXPECT_LE(nmse(reference(x, 16, 2, 777, p, f), y.data()), kMaxNmse) << what;
    };
    check(nullptr, "none");
    check(factors.data(), "2");
    factors[3] = 5.0f;  // same address, new values
    check(factors.data(), "2 and 5");
    check(nullptr, "none again");
    const std::vector<float> elsewhere = factors;
    check(elsewhere.data(), "same values elsewhere");
}

// The op's scalar reference, which the op tests hold every backend to
// (op_cases.cpp), and its CPU path, against this file's computation.
TEST(RopeOp, ReferenceAndCpuApplyFreqFactors) {
    constexpr int64_t kHeadDim = 48, kHeads = 3;
    const std::vector<int32_t> positions{1029, 4000};
    const auto factors = llama3_like_factors(16, 32.0f);
    const auto x = random_row(kHeadDim * kHeads * 2, 17);
    for (RopeMode mode : {RopeMode::Normal, RopeMode::Neox}) {
        const RopeParams p{32, 500000.0f, 0.5f, mode};
        for (auto backend : std::vector<std::shared_ptr<Backend>>{std::make_shared<ReferenceBackend>(),
                                                                  std::make_shared<CpuBackend>(2)}) {
            Graph g;
            Tensor* in = g.input("x", GgmlType::F32, {kHeadDim, kHeads, 2, 1});
            Tensor* y = rope(in, g.weight("pos", GgmlType::I32, {2, 1, 1, 1}, positions.data()), p,
                             g.weight("rope_freqs", GgmlType::F32, {16, 1, 1, 1}, factors.data()));
            Executor ex(g, {y}, {.backends = {backend}});
            test::fill(in, x);
            ex.run();
            const std::vector<float> got = test::values_of(*y);
            constexpr size_t kTokenValues = size_t(kHeadDim * kHeads);
            for (size_t t = 0; t < positions.size(); ++t) {
                const auto first = x.begin() + std::ptrdiff_t(t * kTokenValues);
                const std::vector<float> token(first, first + std::ptrdiff_t(kTokenValues));
                const auto expected = reference(token, kHeadDim, kHeads, positions[t], p, factors.data());
                EXPECT_LE(nmse(expected, got.data() + t * kTokenValues), kMaxNmse)
                    << backend->name() << " mode " << int(mode) << " token " << t;
            }
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
