// cpu::swiglu against the op's reference (ops::kSwiglu).
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test_util.hpp"
#include "kernels/cpu/swiglu.hpp"
#include "op_reference.hpp"
#include "ops/swiglu.hpp"

namespace tessera {
namespace {

using test::kRowSizes;
using test::nmse;
using test::random_row;

constexpr double kMaxNmse = 1e-7;  // llama.cpp test-backend-ops for swiglu

TEST(SwigluKernel, MatchesReference) {
    test::MaxNmse worst;
    for (int64_t n : kRowSizes) {
        // Gates across sigmoid's range, including its saturated ends.
        const auto gate = random_row(n, uint32_t(n), -20.0f, 20.0f);
        const auto up = random_row(n, uint32_t(n) + 7);
        const std::vector<float> ref =
            test::reference_of_rows([](Tensor* g, Tensor* u) { return swiglu(g, u); }, gate, up);
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
