// The small kernels of a mixture-of-experts layer around its expert
// products (matmul.hpp): the router's choice of experts and their weights,
// and the weighted sum of the chosen experts' outputs.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// The indices of the k largest of x[0..n), largest first (equal values: the
// lower index first). k <= n.
void topk_row(const float* x, int64_t n, int64_t k, int32_t* ids);

// w[j] = probs[ids[j]] for j < k; with normalize divided by their sum, or
// by sum_floor where the sum is smaller.
void expert_weights_row(const float* probs, const int32_t* ids, int64_t k, bool normalize, float sum_floor, float* w);

// out[i] = sum_j w[j] * y_j[i] for i < d, y_j = y + j * y_stride floats.
void weighted_sum_row(const float* y, int64_t y_stride, const float* w, int64_t k, int64_t d, float* out);

}  // namespace tessera::cpu
