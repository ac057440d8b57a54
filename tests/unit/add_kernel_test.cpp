#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/add.hpp"
#include "kernels/cpu/mul.hpp"
#include "kernels/cpu/scale.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::random_row;

// One float operation per element, correctly rounded: computed in double and
// rounded once, the reference is exact, so the kernels must match it bit for bit.
template <class Kernel, class Ref>
void expect_exact(Kernel kernel, Ref ref, const char* what) {
    for (int64_t n : kRowSizes) {
        const auto a = random_row(n, uint32_t(n), -1e3f, 1e3f);
        const auto b = random_row(n, uint32_t(n) + 1, -1e-2f, 1e2f);
        std::vector<float> expected(static_cast<size_t>(n));
        for (size_t i = 0; i < expected.size(); ++i) expected[i] = float(ref(double(a[i]), double(b[i])));
        std::vector<float> y(static_cast<size_t>(n));
        kernel(a.data(), b.data(), y.data(), n);
        EXPECT_EQ(y, expected) << what << " n=" << n;
        y = a;
        kernel(y.data(), b.data(), y.data(), n);
        EXPECT_EQ(y, expected) << what << " in place (first) n=" << n;
        y = b;
        kernel(a.data(), y.data(), y.data(), n);
        EXPECT_EQ(y, expected) << what << " in place (second) n=" << n;
    }
}

TEST(ArithKernel, AddIsExact) {
    const auto ref = [](double p, double q) { return p + q; };
    expect_exact(cpu::add, ref, "add");
    test::for_each_cpu_arch([&](auto arch) {
        expect_exact([arch](auto... args) { cpu::Add{}(arch, args...); }, ref, decltype(arch)::name());
    });
}

TEST(ArithKernel, MulIsExact) {
    const auto ref = [](double p, double q) { return p * q; };
    expect_exact(cpu::mul, ref, "mul");
    test::for_each_cpu_arch([&](auto arch) {
        expect_exact([arch](auto... args) { cpu::Mul{}(arch, args...); }, ref, decltype(arch)::name());
    });
}

// scale has one input row: expect_exact's second row goes unused.
TEST(ArithKernel, ScaleIsExact) {
    for (float s : {0.088388f, -3.0f, 0.0f}) {
        const auto ref = [s](double p, double) { return p * double(s); };
        expect_exact([s](const float* x, const float*, float* y, int64_t n) { cpu::scale(x, s, y, n); }, ref, "scale");
        test::for_each_cpu_arch([&](auto arch) {
            const auto kernel = [s, arch](const float* x, const float*, float* y, int64_t n) {
                cpu::Scale{}(arch, x, s, y, n);
            };
            expect_exact(kernel, ref, decltype(arch)::name());
        });
    }
}

}  // namespace
}  // namespace tessera
