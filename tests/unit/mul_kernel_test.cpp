// cpu::mul against the op's reference (ops::kMul), bit for bit.
#include <gtest/gtest.h>

#include "exact_rows_test.hpp"
#include "kernels/cpu/mul.hpp"
#include "ops/mul.hpp"

namespace tessera {
namespace {

TEST(MulKernel, IsExact) {
    const auto op = [](Tensor* a, Tensor* b) { return mul(a, b); };
    test::expect_exact_rows(op, cpu::mul, "mul");
    test::for_each_cpu_arch([&](auto arch) {
        test::expect_exact_rows(op, [arch](auto... args) { cpu::Mul{}(arch, args...); }, decltype(arch)::name());
    });
}

}  // namespace
}  // namespace tessera
