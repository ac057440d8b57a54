// The definition attention() is tested against: per (query, head) row, all
// scores, the full softmax, then the weighted sum of values, in double.
// With round_like_ggml (and F16 K/V) it rounds where llama.cpp's non-flash
// path does: q to F16 before q·k, the normalized probabilities to F16 before V.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/cpu/attention.hpp"
#include "kernels/cpu/attention_plan.hpp"
#include "kernels/quant/half.hpp"

namespace tessera::cpu {
namespace {

// Row j of kv head g, as doubles.
void kv_row(const AttentionArgs& a, const void* base, size_t head_stride, size_t pos_stride, int64_t g, int64_t j,
            std::vector<double>& row) {
    const char* src = static_cast<const char*>(base) + g * head_stride + j * pos_stride;
    for (int64_t d = 0; d < a.head_dim; ++d)
        row[d] = a.kv_type == GgmlType::F32 ? reinterpret_cast<const float*>(src)[d]
                                            : fp16_to_fp32(reinterpret_cast<const uint16_t*>(src)[d]);
}

}  // namespace

void attention_reference(const AttentionArgs& a) {
    validate_attention_args(a);
    const bool round = a.kv_type == GgmlType::F16 && a.round_like_ggml;
    const int64_t group = a.n_head / a.n_head_kv;
    std::vector<double> q(size_t(a.head_dim)), kv(size_t(a.head_dim)), p(size_t(a.n_kv)), out(size_t(a.head_dim));
    for (int64_t i = 0; i < a.n_q; ++i) {
        for (int64_t h = 0; h < a.n_head; ++h) {
            const int64_t g = h / group, n = visible_positions(a, i);
            const auto* src = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.q) +
                                                             i * a.q_token_stride + h * a.q_head_stride);
            for (int64_t d = 0; d < a.head_dim; ++d) q[d] = round ? fp16_to_fp32(fp32_to_fp16(src[d])) : src[d];
            double max = -INFINITY;
            for (int64_t j = 0; j < n; ++j) {
                kv_row(a, a.k, a.k_head_stride, a.k_pos_stride, g, j, kv);
                double s = 0.0;
                for (int64_t d = 0; d < a.head_dim; ++d) s += q[d] * kv[d];
                p[j] = s * a.scale;
                max = std::max(max, p[j]);
            }
            double sum = 0.0;
            for (int64_t j = 0; j < n; ++j) sum += p[j] = std::exp(p[j] - max);
            std::fill(out.begin(), out.end(), 0.0);
            for (int64_t j = 0; j < n; ++j) {
                const double w = round ? fp16_to_fp32(fp32_to_fp16(float(p[j] / sum))) : p[j] / sum;
                kv_row(a, a.v, a.v_head_stride, a.v_pos_stride, g, j, kv);
                for (int64_t d = 0; d < a.head_dim; ++d) out[d] += w * kv[d];
            }
            float* dst = reinterpret_cast<float*>(reinterpret_cast<char*>(a.out) + i * a.out_token_stride +
                                                  h * a.out_head_stride);
            for (int64_t d = 0; d < a.head_dim; ++d) dst[d] = float(out[d]);  // zeros when nothing is visible
        }
    }
}

}  // namespace tessera::cpu
