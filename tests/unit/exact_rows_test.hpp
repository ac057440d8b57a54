// What the add, mul and scale kernel tests share: one float operation per
// element, correctly rounded, is exactly the op's reference (the operation
// in double, rounded once), so the kernels must match it bit for bit.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_test_util.hpp"
#include "op_reference.hpp"

namespace tessera::test {

// kernel(a, b, y, n) against the reference of `op(a, b)` for every row size,
// also in place over either input.
template <class Op, class Kernel>
void expect_exact_rows(Op op, Kernel kernel, const std::string& what) {
    for (int64_t n : kRowSizes) {
        const auto a = random_row(n, uint32_t(n), -1e3f, 1e3f);
        const auto b = random_row(n, uint32_t(n) + 1, -1e-2f, 1e2f);
        const std::vector<float> expected = reference_of_rows(op, a, b);
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

}  // namespace tessera::test
