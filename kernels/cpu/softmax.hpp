// Softmax of one row of attention scores, with scale, additive mask and causal cut-off.
#pragma once

#include <cstdint>

#include "kernels/simd/archs.hpp"

namespace tessera::cpu {

// With v_i = scale * x_i + mask_i (mask may be null: no mask):
// y_i = exp(v_i - max v) / sum_{j < n_valid} exp(v_j - max v) for i < n_valid, and
// y_i = 0 for n_valid <= i < n. A row with nothing to weigh (n_valid == 0, or
// every v_i == -inf) is all zeros. 0 <= n_valid <= n. y may be x.
struct Softmax {
    // Defined in softmax.cpp, instantiated per arch (codegen/simd_kernels.cmake).
    template <class Arch>
    void operator()(Arch, const float* x, float* y, int64_t n, float scale, int64_t n_valid, const float* mask) const;
    void operator()(simd::Scalar, const float* x, float* y, int64_t n, float scale, int64_t n_valid,
                    const float* mask) const;
};

// Dispatch to the best arch of this CPU (softmax_entry.cpp); throws an
// Error when n_valid is outside [0, n].
void softmax(const float* x, float* y, int64_t n, float scale, int64_t n_valid, const float* mask);

}  // namespace tessera::cpu
