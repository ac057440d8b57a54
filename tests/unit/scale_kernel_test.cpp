// cpu::scale against the op's reference (ops::kScale), bit for bit. scale has
// one input row: expect_exact_rows's second row goes unused.
#include <gtest/gtest.h>

#include "exact_rows_test.hpp"
#include "kernels/cpu/scale.hpp"
#include "ops/scale.hpp"

namespace tessera {
namespace {

TEST(ScaleKernel, IsExact) {
    for (float s : {0.088388f, -3.0f, 0.0f}) {
        const auto op = [s](Tensor* x, Tensor*) { return scale(x, s); };
        test::expect_exact_rows(op, [s](const float* x, const float*, float* y, int64_t n) { cpu::scale(x, s, y, n); },
                                "scale");
        test::for_each_cpu_arch([&](auto arch) {
            const auto kernel = [s, arch](const float* x, const float*, float* y, int64_t n) {
                cpu::Scale{}(arch, x, s, y, n);
            };
            test::expect_exact_rows(op, kernel, decltype(arch)::name());
        });
    }
}

}  // namespace
}  // namespace tessera
