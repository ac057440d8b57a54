// cpu::rms_norm and cpu::rms_norm_mul against the op's reference (ops::kRmsNorm).
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/rms_norm.hpp"
#include "op_reference.hpp"
#include "ops/rms_norm.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for rms_norm

// x / sqrt(mean(x^2) + eps), times w where given.
std::vector<float> reference(const std::vector<float>& x, const float* w, float eps) {
    if (!w) return test::reference_of_rows([eps](Tensor* in) { return rms_norm(in, eps); }, x);
    const std::vector<float> weight(w, w + x.size());
    return test::reference_of_rows([eps](Tensor* in, Tensor* wt) { return rms_norm(in, eps, wt); }, x, weight);
}

TEST(RmsNormKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        for (float eps : {1e-5f, 1e-6f}) {
            const auto x = random_row(n, uint32_t(n), -3.0f, 3.0f);
            const auto w = random_row(n, uint32_t(n) + 1, 0.5f, 1.5f);
            const auto ref = reference(x, nullptr, eps);
            const auto ref_w = reference(x, w.data(), eps);
            std::vector<float> y(static_cast<size_t>(n));

            cpu::rms_norm(x.data(), y.data(), n, eps);
            worst.add(nmse(ref, y.data()));
            EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << "n=" << n;
            cpu::rms_norm_mul(x.data(), w.data(), y.data(), n, eps);
            worst.add(nmse(ref_w, y.data()));
            EXPECT_LE(nmse(ref_w, y.data()), kMaxNmse) << "n=" << n;

            test::for_each_cpu_arch([&](auto arch) {
                cpu::RmsNorm{}(arch, x.data(), nullptr, y.data(), n, eps);
                worst.add(nmse(ref, y.data()));
                EXPECT_LE(nmse(ref, y.data()), kMaxNmse) << decltype(arch)::name() << " n=" << n;
                cpu::RmsNorm{}(arch, x.data(), w.data(), y.data(), n, eps);
                worst.add(nmse(ref_w, y.data()));
                EXPECT_LE(nmse(ref_w, y.data()), kMaxNmse) << decltype(arch)::name() << " n=" << n;
            });
        }
    }
}

TEST(RmsNormKernel, InPlace) {
    for (int64_t n : kRowSizes) {
        const auto x = random_row(n, 11);
        const auto w = random_row(n, 12);
        std::vector<float> y = x;
        cpu::rms_norm(y.data(), y.data(), n, 1e-5f);
        EXPECT_LE(nmse(reference(x, nullptr, 1e-5f), y.data()), kMaxNmse) << "n=" << n;
        y = x;
        cpu::rms_norm_mul(y.data(), w.data(), y.data(), n, 1e-5f);
        EXPECT_LE(nmse(reference(x, w.data(), 1e-5f), y.data()), kMaxNmse) << "n=" << n;
    }
}

// Magnitudes far from 1: the sum of squares of a long row stays accurate, and
// eps dominates a row of zeros or tiny values.
TEST(RmsNormKernel, ExtremeMagnitudes) {
    for (float magnitude : {1e-20f, 1e-3f, 1e3f, 1e15f}) {
        const auto x = random_row(4099, 5, -magnitude, magnitude);
        std::vector<float> y(x.size());
        cpu::rms_norm(x.data(), y.data(), int64_t(x.size()), 1e-6f);
        EXPECT_LE(nmse(reference(x, nullptr, 1e-6f), y.data()), kMaxNmse) << magnitude;
    }
    const std::vector<float> zeros(65, 0.0f);
    std::vector<float> y(65, 1.0f);
    cpu::rms_norm(zeros.data(), y.data(), 65, 1e-6f);
    for (float v : y) EXPECT_EQ(v, 0.0f);
}

}  // namespace
}  // namespace tessera
