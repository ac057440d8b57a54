#include "kernels/cpu/moe.hpp"

#include <algorithm>

namespace tessera::cpu {

// Insertion into a sorted list of k: a router has 8 to 256 experts and
// chooses up to 8, where this beats sorting.
void topk_row(const float* x, int64_t n, int64_t k, int32_t* ids) {
    int64_t filled = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (filled == k && !(x[i] > x[ids[k - 1]])) continue;
        int64_t at = std::min(filled, k - 1);
        while (at > 0 && x[i] > x[ids[at - 1]]) {
            ids[at] = ids[at - 1];
            --at;
        }
        ids[at] = int32_t(i);
        filled = std::min(filled + 1, k);
    }
}

void expert_weights_row(const float* probs, const int32_t* ids, int64_t k, bool normalize, float sum_floor, float* w) {
    float sum = 0.0f;
    for (int64_t j = 0; j < k; ++j) sum += (w[j] = probs[ids[j]]);
    if (!normalize) return;
    const float inv = 1.0f / std::max(sum, sum_floor);
    for (int64_t j = 0; j < k; ++j) w[j] *= inv;
}

void weighted_sum_row(const float* y, int64_t y_stride, const float* w, int64_t k, int64_t d, float* out) {
    for (int64_t i = 0; i < d; ++i) out[i] = w[0] * y[i];
    for (int64_t j = 1; j < k; ++j) {
        const float* yj = y + j * y_stride;
        const float wj = w[j];
        for (int64_t i = 0; i < d; ++i) out[i] += wj * yj[i];
    }
}

}  // namespace tessera::cpu
