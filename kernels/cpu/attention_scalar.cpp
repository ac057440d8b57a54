// Fallback of the attention kernel for CPUs without SSE4.2 (portable builds):
// the same work items as the SIMD kernel, but one (query, head) row at a time
// with a running max and sum per kv position (online softmax, tile of one).
// Compiled without arch flags.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/attention_kernel.hpp"
#include "kernels/quant/half.hpp"

namespace tessera::cpu {
namespace {

float round_f16(float x) { return fp16_to_fp32(fp32_to_fp16(x)); }

// kv row j of one head as F32: the cache row itself, or converted into `buffer`.
const float* row_f32(const AttentionArgs& a, const char* head, size_t pos_stride, int64_t j, float* buffer) {
    const char* row = head + j * pos_stride;
    if (a.kv_type == GgmlType::F32) return reinterpret_cast<const float*>(row);
    const auto* h = reinterpret_cast<const uint16_t*>(row);
    for (int64_t d = 0; d < a.head_dim; ++d) buffer[d] = fp16_to_fp32(h[d]);
    return buffer;
}

void attend_row(const AttentionArgs& a, int64_t i, int64_t h, int64_t kv_head, float* q, float* acc, float* kv) {
    const int64_t dim = a.head_dim;
    const bool round = a.kv_type == GgmlType::F16 && a.round_like_ggml;
    const auto* src = reinterpret_cast<const float*>(reinterpret_cast<const char*>(a.q) + i * a.q_token_stride +
                                                     h * a.q_head_stride);
    for (int64_t d = 0; d < dim; ++d) q[d] = round ? round_f16(src[d]) : src[d];
    std::fill_n(acc, dim, 0.0f);
    const char* k = static_cast<const char*>(a.k) + kv_head * a.k_head_stride;
    const char* v = static_cast<const char*>(a.v) + kv_head * a.v_head_stride;
    float max = -std::numeric_limits<float>::infinity(), sum = 0.0f;
    const VisiblePositions seen = visible_positions(a, i);
    for (int64_t j = seen.first; j <= seen.last; ++j) {
        const float* kj = row_f32(a, k, a.k_pos_stride, kv_row(a, j), kv);
        float s = 0.0f;
        for (int64_t d = 0; d < dim; ++d) s += q[d] * kj[d];
        s *= a.scale;
        if (a.softcap > 0.0f) s = a.softcap * std::tanh(s / a.softcap);
        if (s > max) {  // new max: rescale what was summed against the old one
            const float alpha = std::exp(max - s);
            for (int64_t d = 0; d < dim; ++d) acc[d] *= alpha;
            sum *= alpha;
            max = s;
        }
        const float p = std::exp(s - max);
        sum += p;
        const float pv = round ? round_f16(p) : p;
        const float* vj = row_f32(a, v, a.v_pos_stride, kv_row(a, j), kv);
        for (int64_t d = 0; d < dim; ++d) acc[d] += pv * vj[d];
    }
    float* out = reinterpret_cast<float*>(reinterpret_cast<char*>(a.out) + i * a.out_token_stride +
                                          h * a.out_head_stride);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;  // a row that saw nothing: zeros
    for (int64_t d = 0; d < dim; ++d) out[d] = acc[d] * inv;
}

}  // namespace

void AttentionKernel::operator()(simd::Scalar, const AttentionArgs& a, const AttentionPlan& plan, void* work,
                                 const ThreadTeam& team) const {
    const auto [begin, end] = plan.thread_items(a, team);
    float* scratch = plan.thread_scratch(work, team.ith);
    // Each region holds at least head_dim floats.
    float* q = scratch + plan.qt_offset;
    float* acc = scratch + plan.acc_offset;
    float* kv = scratch + plan.k_offset;
    for (int64_t k = begin; k < end; ++k) {
        const AttentionItem it = plan.item(a, k);
        for (int64_t i = it.q_begin; i < it.q_end; ++i)
            for (int64_t h = it.head_begin; h < it.head_begin + it.heads; ++h) attend_row(a, i, h, it.kv_head, q, acc, kv);
    }
}

}  // namespace tessera::cpu
