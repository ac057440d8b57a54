// The CPU matmul's activation conversion: its loops (activation_ops.hpp) in
// this build's arch against their plain C++ versions, and its block
// quantizers against the dot types' scalar quantize_activation, bit for bit.
#include "kernels/cpu/avx512_intrinsics_warning.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "graph_test_util.hpp"
#include "kernels/cpu/matmul/activations.hpp"

namespace tessera::cpu::matmul_detail {
namespace {

using Built = xsimd::default_arch;  // AVX-512 where the build has it
using Plain = ActivationOps<simd::Scalar>;
using Fast = ActivationOps<Built>;

// Blocks that exercise the rounding and scale rules: random values, exact
// ties (amax 127 makes the scale 1), zeros, float-subnormal values, and the
// largest magnitude twice with opposite signs (Q8_K takes the first).
std::vector<std::vector<float>> test_blocks(size_t n) {
    std::vector<std::vector<float>> blocks;
    for (uint32_t seed = 1; seed <= 4; ++seed) blocks.push_back(test::random_floats(n, seed, seed == 4 ? 1e-3f : 2.0f));
    std::vector<float> ties(n, 0.0f);
    for (size_t i = 0; i < n; ++i) ties[i] = float(int(i % 17) - 8) + 0.5f;
    ties[3] = 127.0f;
    blocks.push_back(ties);
    blocks.push_back(std::vector<float>(n, 0.0f));
    blocks.push_back(std::vector<float>(n, std::numeric_limits<float>::denorm_min()));
    std::vector<float> both_signs = test::random_floats(n, 9, 1.0f);
    both_signs[n / 3] = 5.0f;
    both_signs[n / 2] = -5.0f;
    blocks.push_back(both_signs);
    both_signs[n / 3] = -5.0f;
    both_signs[n / 2] = 5.0f;
    blocks.push_back(both_signs);
    return blocks;
}

TEST(ActivationConvert, LoopsMatchPlainVersions) {
    for (int64_t n : {32, 64, 256}) {
        for (const auto& x : test_blocks(size_t(n))) {
            const float amax = Plain::max_abs(x.data(), n);
            ASSERT_EQ(Fast::max_abs(x.data(), n), amax);
            if (!std::isfinite(kQ16Max / amax)) continue;  // the quantizers round zero and float-subnormal blocks to 0
            EXPECT_EQ(Fast::first_of_magnitude(x.data(), n, amax), Plain::first_of_magnitude(x.data(), n, amax));

            const size_t count = size_t(n);
            std::vector<int8_t> q(count), q_plain(count), lo(count), lo_plain(count);
            Fast::round_bytes(x.data(), n, 127.0f / amax, q.data());
            Plain::round_bytes(x.data(), n, 127.0f / amax, q_plain.data());
            EXPECT_EQ(q, q_plain) << "n " << n;
            Fast::round_halves(x.data(), n, kQ16Max / amax, q.data(), lo.data());
            Plain::round_halves(x.data(), n, kQ16Max / amax, q_plain.data(), lo_plain.data());
            EXPECT_EQ(q, q_plain) << "n " << n;
            EXPECT_EQ(lo, lo_plain) << "n " << n;

            std::vector<int32_t> sums(count / 4, 7), sums_plain = sums;
            Fast::sums4<false>(q.data(), n, -3, sums.data());
            Plain::sums4<false>(q.data(), n, -3, sums_plain.data());
            Fast::sums4<true>(lo.data(), n, 5, sums.data());
            Plain::sums4<true>(lo.data(), n, 5, sums_plain.data());
            EXPECT_EQ(sums, sums_plain) << "n " << n;
            Fast::group_sums<16, false>(q.data(), n, 256, sums.data());
            Plain::group_sums<16, false>(q.data(), n, 256, sums_plain.data());
            Fast::group_sums<32, true>(lo.data(), n, 1, sums.data());
            Plain::group_sums<32, true>(lo.data(), n, 1, sums_plain.data());
            EXPECT_EQ(sums, sums_plain) << "n " << n;
        }
    }
}

TEST(ActivationConvert, MaxAbsSkipsNaN) {
    std::vector<float> x = test::random_floats(64, 3, 1.0f);
    const float amax = Plain::max_abs(x.data(), 64);
    x[17] = std::numeric_limits<float>::quiet_NaN();
    x[40] = -std::numeric_limits<float>::quiet_NaN();
    EXPECT_LE(Fast::max_abs(x.data(), 64), amax);
    EXPECT_EQ(Fast::max_abs(x.data(), 64), Plain::max_abs(x.data(), 64));
}

template <class D>
void expect_quantizer_matches(const std::vector<float>& x, int block) {
    using Quant = ActivationQuant<Built, D>;
    typename D::Block b;
    D::quantize_activation(x.data(), b);
    int8_t q[D::block_elems];
    const auto terms = Quant::quantize(x.data(), q);
    for (size_t i = 0; i < D::block_elems; ++i) ASSERT_EQ(q[i], b.qs[i]) << D::name << " block " << block << " i " << i;
    int32_t sum = 0;
    for (int8_t v : b.qs) sum += v;
    if constexpr (std::is_same_v<D, Q8_K>) {
        EXPECT_EQ(terms.d, b.d) << "block " << block;
        EXPECT_EQ(terms.min_term(b.bsums[0] + b.bsums[1]), b.d * float(b.bsums[0] + b.bsums[1])) << "block " << block;
    } else {
        EXPECT_EQ(terms.d, fp16_to_fp32(b.d)) << D::name << " block " << block;
        if constexpr (std::is_same_v<D, Q8_1>) {
            EXPECT_EQ(terms.min_term(sum), fp16_to_fp32(b.s)) << "block " << block;
        }
    }
}

TEST(ActivationConvert, BlockQuantizersMatchTheTypes) {
    int block = 0;
    for (const auto& x : test_blocks(32)) {
        expect_quantizer_matches<Q8_0>(x, block);
        expect_quantizer_matches<Q8_1>(x, block++);
    }
    for (const auto& x : test_blocks(256)) expect_quantizer_matches<Q8_K>(x, block++);
}

}  // namespace
}  // namespace tessera::cpu::matmul_detail
