// CPU matmul kernels against the op's reference (ops::kMatmul) and against the
// rounding they reproduce, for every weight type of the build, and the
// activation quantizers against llama.cpp's formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/integer_gemm.hpp"
#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/cpu/matmul/stream_spacing.hpp"
#include "kernels/quant/registry.hpp"
#include "kernels/simd/dispatch.hpp"
#include "op_reference.hpp"
#include "ops/matmul.hpp"
#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera {
namespace {

// ---- Activation quantizers: the README's formulas, written out independently ----

std::vector<float> random_values(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

int round_half_even(double v) {
    const double f = std::floor(v);
    const double frac = v - f;
    if (frac > 0.5) return int(f) + 1;
    if (frac < 0.5) return int(f);
    return int(std::fmod(f, 2.0) == 0.0 ? f : f + 1);
}

TEST(MatmulActivation, Q8_0AndQ8_1RoundHalfToEven) {
    // amax = 127 makes 127/amax exactly 1, so x.5 values are exact ties.
    std::vector<float> x = random_values(32, 1, 40.0f);
    x[0] = 127.0f;
    x[1] = 2.5f;
    x[2] = 3.5f;
    x[3] = -2.5f;
    x[4] = -0.5f;
    x[5] = 0.5f;
    for (auto& v : x) v = std::clamp(v, -126.0f, 127.0f);
    x[0] = 127.0f;
    for (uint32_t seed = 0; seed < 50; ++seed) {
        if (seed > 0) x = random_values(32, seed, 0.1f + seed);
        float amax = 0.0f;
        for (float v : x) amax = std::max(amax, std::fabs(v));
        const float id = 127.0f / amax;
        Q8_0::Block b0;
        Q8_1::Block b1;
        Q8_0::quantize_activation(x.data(), b0);
        Q8_1::quantize_activation(x.data(), b1);
        EXPECT_EQ(b0.d, fp32_to_fp16(amax / 127.0f));
        EXPECT_EQ(b1.d, b0.d);
        int sum = 0;
        for (int i = 0; i < 32; ++i) {
            const int q = round_half_even(double(x[i] * id));
            EXPECT_EQ(b0.qs[i], q) << "seed " << seed << " value " << x[i];
            EXPECT_EQ(b1.qs[i], q);
            sum += q;
        }
        EXPECT_EQ(b1.s, fp32_to_fp16(amax / 127.0f * float(sum)));
        if (seed == 0) {
            EXPECT_EQ(b0.qs[1], 2);
            EXPECT_EQ(b0.qs[2], 4);
            EXPECT_EQ(b0.qs[3], -2);
            EXPECT_EQ(b0.qs[4], 0);
            EXPECT_EQ(b0.qs[5], 0);
        }
    }
    Q8_0::Block zero;
    const std::vector<float> zeros(32, 0.0f);
    Q8_0::quantize_activation(zeros.data(), zero);
    EXPECT_EQ(zero.d, 0);
    for (int8_t q : zero.qs) EXPECT_EQ(q, 0);
}

TEST(MatmulActivation, Q8_KSignedMaxAndClamp) {
    for (uint32_t seed = 0; seed < 20; ++seed) {
        std::vector<float> x = random_values(256, 100 + seed, 0.5f + seed);
        if (seed % 2 == 0) {  // the extreme maps to -127, its mirror image (later) to +127
            x[7] = -1000.0f;
            x[200] = 1000.0f;
        }
        float m = 0.0f;
        for (float v : x)
            if (std::fabs(v) > std::fabs(m)) m = v;
        const float iscale = -127.0f / m;
        Q8_K::Block b;
        Q8_K::quantize_activation(x.data(), b);
        EXPECT_EQ(b.d, 1.0f / iscale);
        for (int i = 0; i < 256; ++i)
            EXPECT_EQ(b.qs[i], std::min(127, round_half_even(double(iscale * x[i])))) << "seed " << seed << " i " << i;
        for (int g = 0; g < 16; ++g) {
            int sum = 0;
            for (int i = 0; i < 16; ++i) sum += b.qs[16 * g + i];
            EXPECT_EQ(b.bsums[g], sum);
        }
        if (seed % 2 == 0) {
            EXPECT_EQ(b.qs[7], -127);
            EXPECT_EQ(b.qs[200], 127);
        }
    }
}

// ---- Matmul against the references ----

template <class List>
struct GtestTypes;
template <class... Ts>
struct GtestTypes<TypeList<Ts...>> {
    using type = ::testing::Types<Ts...>;
};
struct TypeName {
    template <class T>
    static std::string GetName(int) {
        return std::string(T::name);
    }
};

// sum((y - ref)^2) / sum(ref^2): y has m rows of n values `stride` apart,
// ref is dense.
double nmse(const std::vector<float>& y, int64_t stride, const std::vector<float>& ref, int64_t m, int64_t n) {
    double err = 0.0, norm = 0.0;
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const double r = ref[size_t(i * n + j)];
            const double d = double(y[size_t(i * stride + j)]) - r;
            err += d * d;
            norm += r * r;
        }
    return err / norm;
}

// The op's definition: W dequantized, products summed in double (w: n dense
// rows of k values of `type`, x: m dense rows of k floats).
std::vector<float> exact_product(GgmlType type, const std::vector<uint8_t>& w, int64_t n, int64_t k,
                                 const std::vector<float>& x, int64_t m) {
    return test::reference_values([&](Graph& g) {
        return matmul(g.weight("w", type, {k, n, 1, 1}, w.data()),
                      g.weight("x", GgmlType::F32, {k, m, 1, 1}, x.data()));
    });
}

// ActivationPrecision::Q16's rounding of x: 16-bit blocks for quantized
// weights where the kernel rounds (fewer than kQ16GemmMinTokens tokens, or
// an integer path: cpu::q16_matmul_rounds_activations), else x as it is.
std::vector<float> q16_rounded(const QuantTypeEntry& type, const std::vector<float>& x, int64_t k, int64_t m) {
    if (type.traits.block_elems == 1 || !cpu::q16_matmul_rounds_activations(type.traits.id, k, m)) return x;
    std::vector<float> rounded(x.size());
    int32_t q[cpu::matmul_detail::kQ16Block];
    for (int64_t i = 0; i < m; ++i)
        for (int64_t l = 0; l < k; l += cpu::matmul_detail::kQ16Block) {
            const float d = cpu::matmul_detail::quantize_q16(x.data() + i * k + l, q);
            for (int64_t e = 0; e < cpu::matmul_detail::kQ16Block; ++e) rounded[size_t(i * k + l + e)] = d * float(q[e]);
        }
    return rounded;
}

// What the Q8 kernels compute, in llama.cpp's arithmetic: x rows converted to
// the weight type's dot type (the activation quantizer for Q8_0, Q8_1, Q8_K),
// then the type's scalar dot (kernels/quant/types/). Not a definition of
// matmul (exact_product is): the rounding the kernels reproduce but for
// float order.
template <class T>
std::vector<float> llama_cpp_dots(const std::vector<uint8_t>& w, int64_t n, int64_t k, const std::vector<float>& x,
                                  int64_t m) {
    using D = typename T::DotType;
    constexpr int64_t E = T::block_elems;
    std::vector<typename D::Block> act(size_t(k / E));
    std::vector<float> y(size_t(m * n));
    const auto* blocks = reinterpret_cast<const typename T::Block*>(w.data());
    for (int64_t i = 0; i < m; ++i) {
        for (size_t b = 0; b < act.size(); ++b)
            cpu::matmul_detail::quantize_activation<D>(x.data() + i * k + int64_t(b) * E, act[b]);
        for (int64_t j = 0; j < n; ++j) y[size_t(i * n + j)] = T::dot(blocks + j * (k / E), act.data(), act.size());
    }
    return y;
}

// Threshold of the NMSE against the exact product: the activation rounding.
template <class T>
double exact_threshold(ActivationPrecision activations) {
    if (T::id == GgmlType::F32 || (T::block_elems == 1 && activations == ActivationPrecision::Q16)) return 1e-12;
    if (activations == ActivationPrecision::Q16) return 1e-8;  // 2^-15 of a block's amax
    if (T::id == GgmlType::F16) return 1e-6;
    if (T::id == GgmlType::BF16) return 2e-5;
    return 5e-4;
}

struct Shape {
    int64_t n, k_blocks, m;
    bool strided;
    // Rows an odd multiple of 128 bytes apart: one token's row streams of 32
    // (or 16) rows then start a multiple of 4 KiB apart, which the driver
    // avoids by leaving rows to read after the streams (stream_spacing.hpp).
    bool page_aliased = false;
};

template <class T>
class MatmulTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatmulTest, GtestTypes<EnabledQuantTypes>::type, TypeName);

TYPED_TEST(MatmulTest, MatchesReferences) {
    using T = TypeParam;
    if (!cpu::matmul_supports(T::id)) {
        EXPECT_TRUE(T::id == GgmlType::Q8_1 || T::id == GgmlType::Q8_K) << T::name;
        EXPECT_THROW(cpu::matmul_work_bytes(T::id, int64_t(T::block_elems), 1, ActivationPrecision::Q8, 1), Error);
        GTEST_SKIP() << T::name << " is an activation-only type";
    }
    constexpr int64_t E = T::block_elems;
    const QuantTypeEntry& type = require_quant_type(T::id, "matmul test");
    // Several blocks: past one 1024-value segment of the driver and not a multiple of 64 values.
    const int64_t several = E == 1 ? 1100 : E == 32 ? 35 : 5;
    const std::vector<Shape> shapes = {
        {1, 1, 1, false},       {3, several, 1, true},  {67, several, 1, false}, {40, 1, 1, true},
        {17, 1, 2, true},       {67, several, 5, false},
        {17, several, 13, true}, {3, 1, 64, false},      {67, several, 64, true}, {5, several, 70, true},
        // Whole 256-value spans, as the integer paths need, with tails of their
        // blocks of rows (16, 32) and tokens (16, 6).
        {37, 512 / E, 40, true},
        {131, several, 1, false, true},
    };
    double worst_rounded = 0.0, worst_exact_q8 = 0.0, worst_exact_q16 = 0.0;
    for (const Shape& s : shapes) {
        const int64_t k = s.k_blocks * E;
        const size_t row_bytes = size_t(k / E) * sizeof(typename T::Block);
        size_t w_stride = row_bytes + (s.strided ? 8 : 0);
        if (s.page_aliased) w_stride = (row_bytes / 256 + 1) * 256 + 128;
        const int64_t x_stride = k + (s.strided ? 5 : 0), y_stride = s.n + (s.strided ? 3 : 0);

        const std::vector<float> wf = random_values(size_t(s.n * k), uint32_t(11 * s.n + k));
        std::vector<uint8_t> w(w_stride * size_t(s.n), 0xAB);
        for (int64_t j = 0; j < s.n; ++j)
            for (int64_t b = 0; b < k / E; ++b)
                T::quantize(wf.data() + j * k + b * E,
                            reinterpret_cast<typename T::Block*>(w.data() + j * w_stride)[b]);
        const std::vector<float> x = random_values(size_t(s.m * x_stride), uint32_t(7 * s.m + k));
        // The references read dense copies of the strided rows.
        std::vector<uint8_t> w_dense(row_bytes * size_t(s.n));
        for (int64_t j = 0; j < s.n; ++j)
            std::memcpy(w_dense.data() + size_t(j) * row_bytes, w.data() + size_t(j) * w_stride, row_bytes);
        std::vector<float> x_dense(size_t(s.m * k));
        for (int64_t i = 0; i < s.m; ++i) std::copy_n(x.begin() + i * x_stride, k, x_dense.begin() + i * k);
        const std::vector<float> y_exact = exact_product(T::id, w_dense, s.n, k, x_dense, s.m);

        // Q16 twice where an integer path (AMX or VNNI) takes the type: that
        // path, and the F32 GEMM of CPUs without one.
        const bool integer = cpu::q16_matmul_rounds_activations(T::id, cpu::matmul_detail::kSpan, 2 * cpu::kQ16GemmMinTokens);
        for (const int pass : {0, 1, 2}) {
            if (pass == 2 && !integer) break;
            cpu::allow_integer_gemm(pass != 2);
            const ActivationPrecision activations = pass == 0 ? ActivationPrecision::Q8 : ActivationPrecision::Q16;
            const bool q16 = activations == ActivationPrecision::Q16;
            cpu::MatmulArgs args{T::id, w.data(), w_stride, x.data(), size_t(x_stride) * 4, nullptr,
                                 size_t(y_stride) * 4, s.n, k, s.m, activations};
            // The kernel's own rounding of x, then the exact product of that (or llama.cpp's dots).
            const std::vector<float> y_rounded =
                q16 ? exact_product(T::id, w_dense, s.n, k, q16_rounded(type, x_dense, k, s.m), s.m)
                    : llama_cpp_dots<T>(w_dense, s.n, k, x_dense, s.m);

            const std::string mode = q16 ? (pass == 2 ? " Q16 without the integer paths" : " Q16") : " Q8";
            // The archs without AMX or VNNI code read x as it is where those paths would round it.
            const std::vector<float>& y_unrounded_arch =
                q16 && cpu::q16_matmul_rounds_activations(T::id, k, s.m) && s.m >= cpu::kQ16GemmMinTokens ? y_exact
                                                                                                          : y_rounded;
            for (int threads : {1, 2, 3}) {
                const size_t work_bytes = cpu::matmul_work_bytes(T::id, k, s.m, activations, threads);
                std::vector<float> y(size_t(s.m * y_stride), 0.0f);
                args.y = y.data();
                void* work = std::aligned_alloc(64, (work_bytes + 63) / 64 * 64 + 64);
                cpu::run_team(threads, [&](const cpu::ThreadTeam& team) { cpu::matmul(args, work, team); });
                std::free(work);
                const double e_rounded = nmse(y, y_stride, y_rounded, s.m, s.n);
                const double e_exact = nmse(y, y_stride, y_exact, s.m, s.n);
                double& worst_exact = q16 ? worst_exact_q16 : worst_exact_q8;
                worst_rounded = std::max(worst_rounded, e_rounded);
                worst_exact = std::max(worst_exact, e_exact);
                const std::string where = std::string(T::name) + mode + " n=" + std::to_string(s.n) +
                                          " k=" + std::to_string(k) + " m=" + std::to_string(s.m) +
                                          " threads=" + std::to_string(threads);
                EXPECT_LE(e_rounded, 1e-10) << where;
                EXPECT_LE(e_exact, exact_threshold<T>(activations)) << where;
                // Padding between output rows stays untouched.
                for (int64_t i = 0; i < s.m; ++i)
                    for (int64_t j = s.n; j < y_stride; ++j) EXPECT_EQ(y[size_t(i * y_stride + j)], 0.0f) << where;
            }
            // Every arch this CPU can run (the build's list; portable builds have
            // several), and the scalar fallback, on two threads.
            auto check_arch = [&]<class Arch>(Arch arch) {
                std::vector<float> y(size_t(s.m * y_stride), 0.0f);
                args.y = y.data();
                const size_t work_bytes = cpu::matmul_work_bytes(T::id, k, s.m, activations, 2);
                void* work = std::aligned_alloc(64, (work_bytes + 63) / 64 * 64 + 64);
                cpu::run_team(2, [&](const cpu::ThreadTeam& team) { cpu::MatmulKernel{}(arch, args, work, team); });
                std::free(work);
                // The integer paths: VNNI, and AMX, which only native builds for CPUs with VNNI compile.
                const bool has_integer_code = simd::has_vnni<Arch>;
                EXPECT_LE(nmse(y, y_stride, has_integer_code ? y_rounded : y_unrounded_arch, s.m, s.n), 1e-10)
                    << T::name << mode << " arch " << Arch::name() << " n=" << s.n << " k=" << k << " m=" << s.m;
            };
            [&]<class... Archs>(xsimd::arch_list<Archs...>) {
                ((simd::runs_here<Archs>() ? check_arch(Archs{}) : void()), ...);
            }(simd::CpuArchs{});
            check_arch(simd::Scalar{});
        }
        cpu::allow_integer_gemm(true);
    }
    std::printf("[ NMSE     ] %-6s vs own rounding %.2e, vs exact: Q8 %.2e, Q16 %.2e\n", std::string(T::name).c_str(),
                worst_rounded, worst_exact_q8, worst_exact_q16);
}

TEST(Matmul, RejectsBadArguments) {
    EXPECT_THROW(cpu::matmul_work_bytes(GgmlType::Q4_0, 48, 1, ActivationPrecision::Q8, 1), Error);
    EXPECT_THROW(cpu::matmul_work_bytes(GgmlType::Q4_K, 0, 1, ActivationPrecision::Q8, 1), Error);
    EXPECT_FALSE(cpu::matmul_supports(GgmlType(9999)));
    EXPECT_THROW(cpu::matmul_work_bytes(GgmlType(9999), 32, 1, ActivationPrecision::Q8, 1), Error);
}

// The streams of one token's matmul: rows left out where their starts would
// share a 4 KiB page offset, and only then.
TEST(MatvecStreams, ApartInThePage) {
    using cpu::matmul_detail::page_spread;
    using cpu::matmul_detail::stream_rows;
    // 2176-byte rows (Q8_0, k = 2048), 256 rows a stream: 136 pages apart.
    // 255 and 254 rows leave two streams 256 bytes apart; 253 rows: 768.
    EXPECT_EQ(page_spread(256 * 2176, 4), 0);
    EXPECT_EQ(page_spread(255 * 2176, 4), 256);
    EXPECT_EQ(page_spread(253 * 2176, 4), 768);
    EXPECT_EQ(stream_rows(1024, 2176, 4), 253);
    EXPECT_EQ(stream_rows(1027, 2176, 4), 253);
    // 1190-byte rows: 256 of them put the four streams 1536, 1024 and 512 bytes apart: kept.
    EXPECT_EQ(stream_rows(1024, 1190, 4), 256);
    // Rows of whole pages: no count helps, none is left out.
    EXPECT_EQ(stream_rows(1024, 4096, 4), 256);
    // 32 rows a stream: 31 and 30 leave two streams 256 bytes apart, 29 rows 768.
    EXPECT_EQ(stream_rows(128, 2176, 4), 29);
    EXPECT_EQ(stream_rows(3, 2176, 4), 0);
}

}  // namespace
}  // namespace tessera
