// cpu::add against the op's reference (ops::kAdd), bit for bit.
#include <gtest/gtest.h>

#include "exact_rows_test.hpp"
#include "kernels/cpu/add.hpp"
#include "ops/add.hpp"

namespace tessera {
namespace {

TEST(AddKernel, IsExact) {
    const auto op = [](Tensor* a, Tensor* b) { return add(a, b); };
    test::expect_exact_rows(op, cpu::add, "add");
    test::for_each_cpu_arch([&](auto arch) {
        test::expect_exact_rows(op, [arch](auto... args) { cpu::Add{}(arch, args...); }, decltype(arch)::name());
    });
}

}  // namespace
}  // namespace tessera
