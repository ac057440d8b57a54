#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/silu.hpp"
#include "kernels/cpu/swiglu.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for unary ops and swiglu

double silu_ref(double x) { return x / (1.0 + std::exp(-x)); }

// Inputs across sigmoid's range, including its saturated ends.
std::vector<float> silu_inputs(int64_t n, uint32_t seed) { return random_row(n, seed, -20.0f, 20.0f); }

TEST(SiluKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        const auto x = silu_inputs(n, uint32_t(n));
        std::vector<double> ref(x.size());
        for (size_t i = 0; i < x.size(); ++i) ref[i] = silu_ref(x[i]);
        std::vector<float> y(x.size());
        cpu::silu(x.data(), y.data(), n);
        worst.add(nmse(ref, y.data()));
        EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "n=" << n;
        test::for_each_cpu_arch([&](auto arch) {
            cpu::Silu{}(arch, x.data(), y.data(), n);
            worst.add(nmse(ref, y.data()));
            EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << decltype(arch)::name() << " n=" << n;
        });
        y = x;
        cpu::silu(y.data(), y.data(), n);
        EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "in place n=" << n;
    }
}

// Where exp(-x) overflows float (x < -88.7) the result is -0 instead of a
// value below 1e-36; large x give x itself; never nan.
TEST(SiluKernel, EdgeValues) {
    const std::vector<float> x = {0.0f,    -0.0f,   1e-30f, -1e-30f, -88.0f, -89.0f, -100.0f, 100.0f,
                                  -1e30f,  1e30f,   -3e38f, 3e38f,   15.0f,  -15.0f, 88.5f,   -87.0f, 1.0f};
    test::for_each_cpu_arch([&](auto arch) {
        for (int64_t n = 1; n <= int64_t(x.size()); n += 8) {
            std::vector<float> y(x.size(), 42.0f);
            cpu::Silu{}(arch, x.data(), y.data(), n);
            for (int64_t i = 0; i < n; ++i) {
                const double ref = silu_ref(x[size_t(i)]);
                EXPECT_NEAR(y[size_t(i)], ref, 1e-6 * std::fabs(ref) + 1e-36)
                    << decltype(arch)::name() << " x=" << x[size_t(i)] << " n=" << n;
            }
        }
    });
}

TEST(SwigluKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        const auto gate = silu_inputs(n, uint32_t(n));
        const auto up = random_row(n, uint32_t(n) + 7);
        std::vector<double> ref(gate.size());
        for (size_t i = 0; i < gate.size(); ++i) ref[i] = silu_ref(gate[i]) * up[i];
        std::vector<float> y(gate.size());
        cpu::swiglu(gate.data(), up.data(), y.data(), n);
        worst.add(nmse(ref, y.data()));
        EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "n=" << n;
        test::for_each_cpu_arch([&](auto arch) {
            cpu::Swiglu{}(arch, gate.data(), up.data(), y.data(), n);
            worst.add(nmse(ref, y.data()));
            EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << decltype(arch)::name() << " n=" << n;
        });
        y = gate;
        cpu::swiglu(y.data(), up.data(), y.data(), n);
        EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "in place (gate) n=" << n;
        y = up;
        cpu::swiglu(gate.data(), y.data(), y.data(), n);
        EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "in place (up) n=" << n;
    }
}

}  // namespace
}  // namespace tessera
