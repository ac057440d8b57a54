// Per-type tests, instantiated for every quant type of this build: the
// conformance checks against llama.cpp's dequantization goldens (skipped
// without the data, or for types that have no golden) and self-contained
// checks of round trips, dot products and row-length validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "kernels/quant/registry.hpp"
#include "logit_compare.hpp"
#include "models/gguf/file.hpp"
#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera {
namespace {

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

template <class T>
class QuantTypeTest : public ::testing::Test {};
TYPED_TEST_SUITE(QuantTypeTest, GtestTypes<EnabledQuantTypes>::type, TypeName);

// Values per row in the random tests: a multiple of every block size.
constexpr size_t kRowElems = 4096;
// The dequantization goldens' tensor: 768 rows of 256 values.
constexpr size_t kGoldenRows = 768;
constexpr size_t kGoldenRowElems = 256;
constexpr const char* kGoldenTensor = "blk.0.ffn_up.weight";

template <class T>
std::vector<typename T::Block> quantize(const std::vector<float>& x) {
    std::vector<typename T::Block> blocks(x.size() / T::block_elems);
    for (size_t i = 0; i < blocks.size(); ++i) T::quantize(x.data() + i * T::block_elems, blocks[i]);
    return blocks;
}

template <class T>
std::vector<float> dequantize(const std::vector<typename T::Block>& blocks) {
    std::vector<float> x(blocks.size() * T::block_elems);
    for (size_t i = 0; i < blocks.size(); ++i) T::dequantize(blocks[i], x.data() + i * T::block_elems);
    return x;
}

template <class T>
std::vector<float> round_trip(const std::vector<float>& x) {
    return dequantize<T>(quantize<T>(x));
}

double rmse(const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0.0;
    for (size_t i = 0; i < a.size(); ++i) sum += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    return std::sqrt(sum / double(a.size()));
}

// Bound on the round-trip RMSE relative to the data's RMS for Gaussian data:
// 2^-(bits per value - 2), about twice what the integer types achieve. Bits
// are capped at 8: the size of float types counts exponent bits and that of
// Q8_K its block sums, neither of which adds resolution.
template <class T>
double relative_rmse_bound() {
    const double bits_per_value = 8.0 * sizeof(typename T::Block) / double(T::block_elems);
    return std::exp2(-(std::min(bits_per_value, 8.0) - 2.0));
}

std::vector<float> gaussian(size_t n, float stddev, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, stddev);
    std::vector<float> x(n);
    for (auto& v : x) v = dist(rng);
    return x;
}

// Groups of 256 values (the largest block size), over which error bounds are
// taken: the error of a block is bounded relative to its own magnitude.
constexpr size_t kGroup = 256;

struct GroupStats {
    double amax = 0.0;
    double rms = 0.0;
    double max_abs_error = 0.0;
    double rmse = 0.0;
};

GroupStats group_stats(const std::vector<float>& x, const std::vector<float>& y, size_t g) {
    GroupStats s;
    for (size_t i = g * kGroup; i < (g + 1) * kGroup; ++i) {
        const double err = std::fabs(double(y[i]) - x[i]);
        s.amax = std::max(s.amax, std::fabs(double(x[i])));
        s.rms += double(x[i]) * x[i];
        s.max_abs_error = std::max(s.max_abs_error, err);
        s.rmse += err * err;
    }
    s.rms = std::sqrt(s.rms / kGroup);
    s.rmse = std::sqrt(s.rmse / kGroup);
    return s;
}

template <class T>
void expect_all_finite(const std::vector<float>& y, const char* what) {
    const auto is_bad = [](float v) { return !std::isfinite(v); };
    const size_t first_bad = size_t(std::find_if(y.begin(), y.end(), is_bad) - y.begin());
    EXPECT_EQ(first_bad, y.size()) << T::name << " " << what << ": value " << first_bad << " is not finite";
}

// Every 256-value group is reproduced with a relative RMSE within the type's bound.
template <class T>
void expect_accurate_round_trip(const std::vector<float>& x, const char* what) {
    const auto y = round_trip<T>(x);
    expect_all_finite<T>(y, what);
    for (size_t g = 0; g < x.size() / kGroup; ++g) {
        const auto s = group_stats(x, y, g);
        EXPECT_LE(s.rmse, relative_rmse_bound<T>() * s.rms) << T::name << " " << what << ", group " << g;
    }
}

using test::read_f32;

// Bit patterns as integers ordered like the floats, so that their difference
// counts the representable floats in between.
int64_t ordered_bits(float f) {
    const int32_t bits = std::bit_cast<int32_t>(f);
    return bits < 0 ? int64_t(INT32_MIN) - bits : bits;
}

TYPED_TEST(QuantTypeTest, DequantizesGoldenBitExactly) {
    using T = TypeParam;
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const auto golden = conformance / "dequant" / (std::string(T::name) + ".gguf");
    if (!std::filesystem::exists(golden)) GTEST_SKIP() << "no dequantization golden for " << T::name;

    const auto file = gguf::File::open(golden.string());
    const auto& tensor = file.tensor(kGoldenTensor);
    ASSERT_EQ(tensor.type.id, T::id);
    ASSERT_EQ(tensor.n_elements(), kGoldenRows * kGoldenRowElems);
    std::vector<typename T::Block> blocks(tensor.n_elements() / T::block_elems);
    ASSERT_EQ(tensor.data.size(), blocks.size() * sizeof(typename T::Block));
    std::memcpy(blocks.data(), tensor.data.data(), tensor.data.size());

    const auto expected = read_f32(conformance / "dequant" / (std::string(T::name) + ".f32"));
    const auto actual = dequantize<T>(blocks);
    ASSERT_EQ(actual.size(), expected.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < actual.size(); ++i) {
        if (std::bit_cast<uint32_t>(actual[i]) == std::bit_cast<uint32_t>(expected[i])) continue;
        if (mismatches++ < 5)
            ADD_FAILURE() << T::name << " value " << i << ": " << actual[i] << " != golden " << expected[i] << " ("
                          << ordered_bits(actual[i]) - ordered_bits(expected[i]) << " ulp)";
    }
    EXPECT_EQ(mismatches, 0u) << T::name << ": values differing from the golden";
}

TYPED_TEST(QuantTypeTest, QuantizesSourceLikeGgml) {
    using T = TypeParam;
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const auto golden = conformance / "dequant" / (std::string(T::name) + ".gguf");
    if (!std::filesystem::exists(golden)) GTEST_SKIP() << "no quantization golden for " << T::name;

    const auto source = read_f32(conformance / "dequant" / "source.f32");
    ASSERT_EQ(source.size(), kGoldenRows * kGoldenRowElems);
    const auto blocks = quantize<T>(source);
    if constexpr (quantizer_matches_ggml<T>()) {
        const auto file = gguf::File::open(golden.string());
        const auto expected = file.tensor(kGoldenTensor).data;
        ASSERT_EQ(expected.size(), blocks.size() * sizeof(typename T::Block));
        size_t differing_blocks = 0;
        for (size_t i = 0; i < blocks.size(); ++i) {
            if (std::memcmp(&blocks[i], expected.data() + i * sizeof(typename T::Block), sizeof(blocks[i])) == 0)
                continue;
            if (differing_blocks++ < 5) ADD_FAILURE() << T::name << ": block " << i << " differs from llama-quantize's";
        }
        EXPECT_EQ(differing_blocks, 0u) << T::name << ": blocks differing from llama-quantize's";
    } else {
        const auto ggml_values = read_f32(conformance / "dequant" / (std::string(T::name) + ".f32"));
        const double ours = rmse(dequantize<T>(blocks), source);
        const double ggml = rmse(ggml_values, source);
        EXPECT_LE(ours, 1.05 * ggml) << T::name << ": RMSE " << ours << " vs llama-quantize's " << ggml;
    }
}

TYPED_TEST(QuantTypeTest, RoundTripsGaussianData) {
    using T = TypeParam;
    expect_accurate_round_trip<T>(gaussian(kRowElems, 1.0f, 1), "N(0, 1)");
    expect_accurate_round_trip<T>(gaussian(kRowElems, 0.02f, 2), "N(0, 0.02)");
}

TYPED_TEST(QuantTypeTest, RoundTripsOddInputs) {
    using T = TypeParam;
    const auto zeros = round_trip<T>(std::vector<float>(kRowElems, 0.0f));
    EXPECT_TRUE(std::all_of(zeros.begin(), zeros.end(), [](float v) { return v == 0.0f; }))
        << T::name << ": zeros do not stay zero";

    auto one_huge = gaussian(kRowElems, 1.0f, 3);
    one_huge[1000] = 30000.0f;
    expect_accurate_round_trip<T>(one_huge, "one huge value");

    auto negative = gaussian(kRowElems, 1.0f, 4);
    for (auto& v : negative) v = -std::fabs(v) - 0.25f;
    expect_accurate_round_trip<T>(negative, "negative values");

    // Values whose block scales fall into fp16's subnormal range, and float
    // subnormals: precision may be lost, but nothing may blow up.
    for (const float scale : {1e-6f, 1e-39f}) {
        const auto tiny = gaussian(kRowElems, scale, 5);
        const auto y = round_trip<T>(tiny);
        expect_all_finite<T>(y, "tiny values");
        for (size_t g = 0; g < tiny.size() / kGroup; ++g) {
            const auto s = group_stats(tiny, y, g);
            EXPECT_LE(s.max_abs_error, 2.0 * s.amax) << T::name << ", values of scale " << scale << ", group " << g;
        }
    }
}

// dot(w, a) with a = the dot type's quantization of x is checked twice:
// against the exact product of the dequantized operands (only float rounding
// and the dot type's rounded block terms may differ), and against the
// product with x itself, allowing for the error of quantizing x.
TYPED_TEST(QuantTypeTest, DotMatchesDequantizedProduct) {
    using T = TypeParam;
    using A = typename T::DotType;
    const auto w = quantize<T>(gaussian(kRowElems, 1.0f, 6));
    const auto x = gaussian(kRowElems, 1.0f, 7);
    const auto a = quantize<A>(x);
    const auto w_values = dequantize<T>(w);
    const auto a_values = dequantize<A>(a);

    double exact = 0.0, with_x = 0.0, rounding_slack = 0.0, activation_error = 0.0;
    for (size_t b = 0; b < kRowElems / A::block_elems; ++b) {
        double w_amax = 0.0, a_abs_sum = 0.0;
        for (size_t i = b * A::block_elems; i < (b + 1) * A::block_elems; ++i) {
            exact += double(w_values[i]) * a_values[i];
            with_x += double(w_values[i]) * x[i];
            activation_error += std::fabs(double(w_values[i])) * std::fabs(double(x[i]) - a_values[i]);
            w_amax = std::max(w_amax, std::fabs(double(w_values[i])));
            a_abs_sum += std::fabs(double(a_values[i]));
        }
        rounding_slack += std::exp2(-9.0) * w_amax * a_abs_sum;
    }
    const float got = T::dot(w.data(), a.data(), w.size());
    EXPECT_NEAR(got, exact, rounding_slack) << T::name << " with " << A::name << " activations";
    EXPECT_NEAR(got, with_x, rounding_slack + activation_error) << T::name << " with " << A::name << " activations";
}

TYPED_TEST(QuantTypeTest, RegistryRowKernelsMatchDefinition) {
    using T = TypeParam;
    using A = typename T::DotType;
    const QuantTypeEntry& entry = require_quant_type(T::id, "test");
    const QuantTypeEntry& dot_entry = require_quant_type(A::id, "test");
    const auto w = gaussian(kRowElems, 1.0f, 8);
    const auto x = gaussian(kRowElems, 1.0f, 9);
    const auto n = int64_t(kRowElems);

    std::vector<uint8_t> w_row(entry.row_bytes(n)), a_row(dot_entry.row_bytes(n));
    entry.quantize(w.data(), w_row.data(), n);
    dot_entry.quantize(x.data(), a_row.data(), n);
    const auto w_blocks = quantize<T>(w);
    const auto a_blocks = quantize<A>(x);
    EXPECT_EQ(std::memcmp(w_row.data(), w_blocks.data(), w_row.size()), 0) << T::name;

    std::vector<float> dequantized(kRowElems);
    entry.dequantize(w_row.data(), dequantized.data(), n);
    EXPECT_EQ(dequantized, dequantize<T>(w_blocks)) << T::name;
    EXPECT_EQ(entry.dot(w_row.data(), a_row.data(), n), T::dot(w_blocks.data(), a_blocks.data(), w_blocks.size()))
        << T::name;
}

template <class Call>
void expect_error(const std::string& expected, Call&& call) {
    try {
        call();
        ADD_FAILURE() << "no error; expected: " << expected;
    } catch (const Error& e) {
        EXPECT_EQ(e.what(), expected);
    }
}

TYPED_TEST(QuantTypeTest, RejectsRowLengthNotMultipleOfBlock) {
    using T = TypeParam;
    const QuantTypeEntry& entry = require_quant_type(T::id, "test");
    EXPECT_EQ(entry.row_bytes(int64_t(3 * T::block_elems)), 3 * sizeof(typename T::Block));

    struct BadLength {
        int64_t n;
        std::string reason;
    };
    std::vector<BadLength> bad_lengths = {{-int64_t(T::block_elems), "is negative"}};
    if (T::block_elems > 1)
        bad_lengths.push_back(
            {int64_t(T::block_elems) + 1, "is not a multiple of the block size " + std::to_string(T::block_elems)});
    std::vector<uint8_t> bytes(4 * sizeof(typename T::Block));
    std::vector<float> values(4 * T::block_elems);
    for (const BadLength& bad : bad_lengths) {
        const int64_t n = bad.n;  // not a structured binding: clang 14 cannot capture those
        const std::string expected = std::string(T::name) + ": row length " + std::to_string(n) + " " + bad.reason;
        expect_error(expected, [&] { entry.row_bytes(n); });
        expect_error(expected, [&] { entry.dequantize(bytes.data(), values.data(), n); });
        expect_error(expected, [&] { entry.quantize(values.data(), bytes.data(), n); });
        expect_error(expected, [&] { entry.dot(bytes.data(), bytes.data(), n); });
    }
}

}  // namespace
}  // namespace tessera
