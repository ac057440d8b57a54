// Helpers for graph tests: random data, quantized weights, error metrics.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <vector>

#include "graph/tensor.hpp"
#include "graph/trace.hpp"
#include "kernels/quant/registry.hpp"

namespace tessera::test {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

// Random weights [cols, rows] quantized to `type` (bytes of rows * row_bytes).
inline std::vector<uint8_t> random_weights(GgmlType type, int64_t cols, int64_t rows, uint32_t seed,
                                           float scale = 0.1f) {
    const QuantTypeEntry& t = require_quant_type(type, "test weights");
    const std::vector<float> values = random_floats(size_t(cols * rows), seed, scale);
    std::vector<uint8_t> bytes(t.row_bytes(cols) * size_t(rows));
    for (int64_t r = 0; r < rows; ++r)
        t.quantize(values.data() + r * cols, bytes.data() + size_t(r) * t.row_bytes(cols), cols);
    return bytes;
}

// sum((a-b)^2) / sum(a^2), a the reference.
inline double nmse(std::span<const float> ref, std::span<const float> got) {
    double err = 0, norm = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        const double d = double(ref[i]) - double(got[i]);
        err += d * d;
        norm += double(ref[i]) * double(ref[i]);
    }
    return norm > 0 ? err / norm : err;
}

inline std::span<const float> f32_values(const Tensor& t) {
    return {static_cast<const float*>(t.data), size_t(t.nelements())};
}

// A tensor's values as dense F32 (any type, any strides).
inline std::vector<float> values_of(const Tensor& t) { return values_as_f32(t); }

template <class T>
void fill(Tensor* t, const std::vector<T>& values) {
    std::memcpy(t->data, values.data(), values.size() * sizeof(T));
}

}  // namespace tessera::test
