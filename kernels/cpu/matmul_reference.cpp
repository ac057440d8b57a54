// Scalar references of the CPU matmul, for the tests: no SIMD, no threads.
#include <string>
#include <vector>

#include "kernels/cpu/matmul.hpp"
#include "kernels/cpu/matmul/activations.hpp"
#include "kernels/quant/registry.hpp"
#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera::cpu {
namespace {

const float* x_row(const MatmulArgs& a, int64_t i) {
    return reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.x) + i * a.x_stride);
}
float* y_row(const MatmulArgs& a, int64_t i) {
    return reinterpret_cast<float*>(reinterpret_cast<char*>(a.y) + i * a.y_stride);
}
const void* w_row(const MatmulArgs& a, int64_t j) { return static_cast<const char*>(a.w) + j * a.w_stride; }

}  // namespace

void matmul_reference_exact(const MatmulArgs& a) {
    const QuantTypeEntry& type = require_quant_type(a.weight_type, "matmul_reference_exact");
    std::vector<float> w(size_t(a.k));
    for (int64_t j = 0; j < a.n; ++j) {
        type.dequantize(w_row(a, j), w.data(), a.k);
        for (int64_t i = 0; i < a.m; ++i) {
            double sum = 0.0;
            for (int64_t l = 0; l < a.k; ++l) sum += double(w[size_t(l)]) * double(x_row(a, i)[l]);
            y_row(a, i)[j] = float(sum);
        }
    }
}

void matmul_reference_dot_type(const MatmulArgs& a) {
    bool found = false;
    EnabledQuantTypes::for_each([&]<class T>() {
        if (T::id != a.weight_type) return;
        found = true;
        using D = typename T::DotType;
        constexpr int64_t E = T::block_elems;
        if (a.k % E != 0) throw Error("matmul_reference_dot_type: k = " + std::to_string(a.k) + " is not a multiple of " + std::string(T::name) + "'s block size");
        std::vector<typename D::Block> act(size_t(a.k / E));
        for (int64_t i = 0; i < a.m; ++i) {
            for (size_t b = 0; b < act.size(); ++b) matmul_detail::quantize_activation<D>(x_row(a, i) + b * E, act[b]);
            for (int64_t j = 0; j < a.n; ++j)
                y_row(a, i)[j] = T::dot(static_cast<const typename T::Block*>(w_row(a, j)), act.data(), act.size());
        }
    });
    if (!found) require_quant_type(a.weight_type, "matmul_reference_dot_type");
}

void matmul_reference_q16(const MatmulArgs& a) {
    const QuantTypeEntry& type = require_quant_type(a.weight_type, "matmul_reference_q16");
    if (type.traits.block_elems == 1 || a.m >= kQ16GemmMinTokens) {  // x unrounded
        matmul_reference_exact(a);
        return;
    }
    if (a.k % matmul_detail::kQ16Block != 0)
        throw Error("matmul_reference_q16: k = " + std::to_string(a.k) + " is not a multiple of 32");
    std::vector<float> rounded(size_t(a.m * a.k));
    int32_t q[matmul_detail::kQ16Block];
    for (int64_t i = 0; i < a.m; ++i)
        for (int64_t l = 0; l < a.k; l += matmul_detail::kQ16Block) {
            const float d = matmul_detail::quantize_q16(x_row(a, i) + l, q);
            for (int64_t e = 0; e < matmul_detail::kQ16Block; ++e) rounded[size_t(i * a.k + l + e)] = d * float(q[e]);
        }
    MatmulArgs exact = a;
    exact.x = rounded.data();
    exact.x_stride = size_t(a.k) * sizeof(float);
    matmul_reference_exact(exact);
}

}  // namespace tessera::cpu
