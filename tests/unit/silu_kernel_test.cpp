// cpu::silu against the op's reference (ops::kSilu).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/silu.hpp"
#include "op_reference.hpp"
#include "ops/silu.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for unary ops

std::vector<float> reference(const std::vector<float>& x) {
    return test::reference_of_rows([](Tensor* in) { return silu(in); }, x);
}

TEST(SiluKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        // Inputs across sigmoid's range, including its saturated ends.
        const auto x = random_row(n, uint32_t(n), -20.0f, 20.0f);
        const std::vector<float> ref = reference(x);
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
    const std::vector<float> ref = reference(x);
    test::for_each_cpu_arch([&](auto arch) {
        for (int64_t n = 1; n <= int64_t(x.size()); n += 8) {
            std::vector<float> y(x.size(), 42.0f);
            cpu::Silu{}(arch, x.data(), y.data(), n);
            for (int64_t i = 0; i < n; ++i)
                EXPECT_NEAR(y[size_t(i)], ref[size_t(i)], 1e-6 * std::fabs(ref[size_t(i)]) + 1e-36)
                    << decltype(arch)::name() << " x=" << x[size_t(i)] << " n=" << n;
        }
    });
}

}  // namespace
}  // namespace tessera
