// Causal multi-head attention with grouped-query heads: for every query token
// and head, softmax(scale * q·K^T) over the visible KV positions, times V.
// The fast kernel is flash-attention style (online softmax over KV tiles, no
// score matrix); the op's definition, which tests compare it with, is its
// scalar reference (ops/attention.cpp).
// Algorithm, tiling, threading and numerics: docs/cpu-attention.md.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cpu/thread_team.hpp"
#include "kernels/quant/ggml_type.hpp"

namespace tessera::cpu {

struct AttentionArgs {
    // Queries: n_q tokens x n_head heads of head_dim floats.
    // q(i, h) = (const char*)q + i*q_token_stride + h*q_head_stride (strides in bytes).
    const float* q = nullptr;
    size_t q_token_stride = 0, q_head_stride = 0;
    int64_t n_q = 0, n_head = 0, head_dim = 0;
    // Keys/values: n_kv positions x n_head_kv heads of head_dim elements of kv_type
    // (F32 or F16), addressed like q with their own byte strides, so the KV cache
    // may be position-major or head-major.
    const void* k = nullptr;
    size_t k_pos_stride = 0, k_head_stride = 0;
    const void* v = nullptr;
    size_t v_pos_stride = 0, v_head_stride = 0;
    GgmlType kv_type = GgmlType::F32;
    int64_t n_kv = 0, n_head_kv = 0;  // n_head % n_head_kv == 0; head h reads kv head h / (n_head / n_head_kv)
    // Position of each query token. The n_kv rows hold the last n_kv
    // positions, position j at row j mod n_kv; query i sees positions
    // max(0, q_pos[i] - w + 1) .. q_pos[i], w = min(window, n_kv) (window 0:
    // n_kv). A query that sees no position gets zeros.
    const int32_t* q_pos = nullptr;
    int64_t window = 0;
    float scale = 1.0f;    // usually 1/sqrt(head_dim)
    float softcap = 0.0f;  // scores s become softcap * tanh(s / softcap); 0: unchanged
    // With F16 K/V, round like llama.cpp's non-flash path: q to F16 before q·k, and
    // the softmax probabilities to F16 before they multiply V (see the doc for
    // where the online-softmax kernel differs). No effect with F32 K/V.
    bool round_like_ggml = false;
    float* out = nullptr;
    size_t out_token_stride = 0, out_head_stride = 0;  // n_q x n_head x head_dim, byte strides
};

// Bytes of scratch attention() needs for a team of n_threads (O(tile) per thread).
size_t attention_work_bytes(const AttentionArgs& a, int n_threads);

// The fast kernel. Every thread of the team calls it with the same arguments and
// the same work buffer of attention_work_bytes(a, team.nth) bytes; it splits the
// work itself and does not synchronize. Throws tessera::Error on bad arguments.
void attention(const AttentionArgs& a, void* work, const ThreadTeam& team);

}  // namespace tessera::cpu
