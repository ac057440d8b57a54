// How attention() cuts its work: query blocks x groups of query heads that
// share a kv head (the work items), the KV tile length, the per-thread scratch
// layout, and which items each thread of a team runs. Arch-independent, so the
// work size and the dispatching entry agree with every kernel variant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernels/cpu/attention.hpp"

namespace tessera::cpu {

// One work item: queries [q_begin, q_end) of the query heads [head_begin,
// head_begin + heads) that all read kv head kv_head.
struct AttentionItem {
    int64_t kv_head, head_begin, heads, q_begin, q_end;
};

struct AttentionPlan {
    // Rows (query x head pairs) are padded to this, the widest float batch, so
    // a kernel of any arch can use aligned full batches across rows.
    static constexpr int64_t kRowAlign = 16;

    int64_t kv_heads = 1;
    int64_t group = 1;           // query heads per kv head
    int64_t heads_per_item = 1;  // query heads of one kv head handled together (divides group)
    int64_t queries_per_block = 1;
    int64_t q_blocks = 0;
    int64_t rows = 0;  // queries_per_block * heads_per_item, padded to kRowAlign
    int64_t tile = 0;  // kv positions per tile, a multiple of kRowAlign

    // Per-thread scratch, in floats from a 64-byte aligned thread base.
    size_t qt_offset = 0;     // head_dim x rows: the item's queries, transposed
    size_t s_offset = 0;      // tile x rows: scores, then probabilities, transposed
    size_t acc_offset = 0;    // rows x head_dim: unnormalized outputs
    size_t k_offset = 0;      // tile x head_dim: keys as F32 (converted or copied)
    size_t v_offset = 0;      // tile x head_dim: values as F32
    size_t m_offset = 0, l_offset = 0, alpha_offset = 0, bound_offset = 0, low_offset = 0;  // rows each
    size_t thread_floats = 0;

    int64_t items() const;
    AttentionItem item(const AttentionArgs& a, int64_t index) const;
    // This thread's items [begin, end): contiguous, balanced by causal work.
    std::pair<int64_t, int64_t> thread_items(const AttentionArgs& a, const ThreadTeam& team) const;
    size_t work_bytes(int n_threads) const;
    float* thread_scratch(void* work, int ith) const;
};

// Throw tessera::Error when the arguments are unsupported or inconsistent:
// the shape (types, head counts, strides) alone, or also the data pointers.
void validate_attention_shape(const AttentionArgs& a);
void validate_attention_args(const AttentionArgs& a);

// Plans for a team of n_threads; the shape must be valid.
AttentionPlan plan_attention(const AttentionArgs& a, int n_threads);

// The kv positions [first, last] query i sees (none when last < first; see AttentionArgs).
struct VisiblePositions {
    int64_t first, last;
    int64_t count() const { return last < first ? 0 : last - first + 1; }
};
inline VisiblePositions visible_positions(const AttentionArgs& a, int64_t i) {
    const int64_t last = a.q_pos[i];
    const int64_t w = a.window > 0 && a.window < a.n_kv ? a.window : a.n_kv;
    const int64_t first = last - w + 1;
    return {first < 0 ? 0 : first, last};
}
// The row of kv position j.
inline int64_t kv_row(const AttentionArgs& a, int64_t j) { return j % a.n_kv; }

}  // namespace tessera::cpu
