#include "kernels/cpu/attention_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "support/error.hpp"

namespace tessera::cpu {
namespace {

// About two AVX-512 batches of rows: enough queries per item to amortize the
// per-tile K/V conversion, few enough that the causal bound stays tight.
constexpr int64_t kRowTarget = 32;
// F32 K and V tiles of about 16 KiB each stay in L1 next to scores and outputs.
constexpr int64_t kTileFloats = 4096;

int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

void require(bool ok, const std::string& message) {
    if (!ok) throw Error("attention: " + message);
}

}  // namespace

void validate_attention_shape(const AttentionArgs& a) {
    require(a.kv_type == GgmlType::F32 || a.kv_type == GgmlType::F16,
            "unsupported kv_type " + std::string(ggml_type_traits(a.kv_type).name) + " (F32 or F16 only)");
    require(a.head_dim > 0, "head_dim must be positive, got " + std::to_string(a.head_dim));
    require(a.n_head > 0 && a.n_head_kv > 0, "n_head and n_head_kv must be positive");
    require(a.n_head % a.n_head_kv == 0, "n_head (" + std::to_string(a.n_head) + ") is not a multiple of n_head_kv (" +
                                             std::to_string(a.n_head_kv) + ")");
    require(a.n_q >= 0 && a.n_kv >= 0, "n_q and n_kv must not be negative");
    require(a.window >= 0, "window must not be negative");
    require(std::isfinite(a.softcap) && a.softcap >= 0, "softcap must be finite and not negative");
    const size_t kv_elem = a.kv_type == GgmlType::F32 ? sizeof(float) : sizeof(uint16_t);
    require(a.q_token_stride % sizeof(float) == 0 && a.q_head_stride % sizeof(float) == 0 &&
                a.out_token_stride % sizeof(float) == 0 && a.out_head_stride % sizeof(float) == 0,
            "q and out strides must be multiples of 4 bytes");
    require(a.k_pos_stride % kv_elem == 0 && a.k_head_stride % kv_elem == 0 && a.v_pos_stride % kv_elem == 0 &&
                a.v_head_stride % kv_elem == 0,
            "k and v strides must be multiples of the kv element size");
}

void validate_attention_args(const AttentionArgs& a) {
    validate_attention_shape(a);
    require(a.n_q == 0 || (a.q && a.out && a.q_pos), "q, q_pos and out must be set");
    require(a.n_q == 0 || a.n_kv == 0 || (a.k && a.v), "k and v must be set");
}

AttentionPlan plan_attention(const AttentionArgs& a, int n_threads) {
    AttentionPlan p;
    p.kv_heads = a.n_head_kv;
    p.group = a.n_head / a.n_head_kv;
    p.heads_per_item = p.group;
    p.queries_per_block = std::max<int64_t>(1, kRowTarget / p.group);
    // Too few items to keep every thread busy (generation, short prompts): first
    // shrink the query blocks, then split the heads of a group.
    for (;;) {
        p.q_blocks = (a.n_q + p.queries_per_block - 1) / p.queries_per_block;
        if (p.items() >= 2 * int64_t(n_threads)) break;
        if (p.queries_per_block > 1) {
            p.queries_per_block = (p.queries_per_block + 1) / 2;
        } else if (p.heads_per_item > 1) {
            int64_t h = p.heads_per_item - 1;
            while (p.group % h != 0) --h;
            p.heads_per_item = h;
        } else {
            break;
        }
    }
    p.rows = round_up(p.queries_per_block * p.heads_per_item, AttentionPlan::kRowAlign);
    p.tile = std::clamp(kTileFloats / a.head_dim / AttentionPlan::kRowAlign * AttentionPlan::kRowAlign, AttentionPlan::kRowAlign, int64_t(256));

    // Regions start on 64-byte boundaries (16 floats).
    const size_t d = size_t(a.head_dim), rows = size_t(p.rows), tile = size_t(p.tile);
    size_t next = 0;
    auto take = [&](size_t floats) {
        const size_t at = next;
        next += size_t(round_up(int64_t(floats), 16));
        return at;
    };
    p.qt_offset = take(d * rows);
    p.s_offset = take(tile * rows);
    p.acc_offset = take(rows * d);
    p.k_offset = take(tile * d);
    p.v_offset = take(tile * d);
    p.m_offset = take(rows);
    p.l_offset = take(rows);
    p.alpha_offset = take(rows);
    p.bound_offset = take(rows);
    p.low_offset = take(rows);
    p.thread_floats = next;
    return p;
}

int64_t AttentionPlan::items() const { return kv_heads * (group / heads_per_item) * q_blocks; }

AttentionItem AttentionPlan::item(const AttentionArgs& a, int64_t index) const {
    const int64_t splits = group / heads_per_item;
    const int64_t block = index % q_blocks;
    const int64_t head_item = index / q_blocks;  // kv_head * splits + split
    const int64_t kv_head = head_item / splits;
    AttentionItem it;
    it.kv_head = kv_head;
    it.heads = heads_per_item;
    it.head_begin = kv_head * group + head_item % splits * heads_per_item;
    it.q_begin = block * queries_per_block;
    it.q_end = std::min(a.n_q, it.q_begin + queries_per_block);
    return it;
}

std::pair<int64_t, int64_t> AttentionPlan::thread_items(const AttentionArgs& a, const ThreadTeam& team) const {
    // An item costs about heads x (visible positions + 1) per query. Items are
    // dealt out in order, each to the thread whose share of the total cost
    // contains the item's midpoint, so every thread gets a contiguous run
    // (consecutive query blocks of one kv head: its K/V stay in cache).
    auto block_cost = [&](int64_t block) {
        int64_t cost = 0;
        const int64_t end = std::min(a.n_q, (block + 1) * queries_per_block);
        for (int64_t i = block * queries_per_block; i < end; ++i) cost += visible_positions(a, i).count() + 1;
        return cost * heads_per_item;
    };
    int64_t per_head_item = 0;
    for (int64_t b = 0; b < q_blocks; ++b) per_head_item += block_cost(b);
    const int64_t n = items();
    const int64_t total = per_head_item * kv_heads * (group / heads_per_item);
    int64_t begin = n, end = n, done = 0;
    for (int64_t k = 0; k < n; ++k) {
        const int64_t cost = block_cost(k % q_blocks);
        const int64_t owner = std::min<int64_t>(team.nth - 1, (2 * done + cost) * team.nth / (2 * total));
        done += cost;
        if (owner == team.ith && begin == n) begin = k;
        if (owner > team.ith) {
            end = k;
            break;
        }
    }
    if (begin == n) end = n;
    return {begin, end};
}

size_t AttentionPlan::work_bytes(int n_threads) const {
    return thread_floats * sizeof(float) * size_t(n_threads) + 64;  // + 64: room to align the base
}

float* AttentionPlan::thread_scratch(void* work, int ith) const {
    const uintptr_t base = (reinterpret_cast<uintptr_t>(work) + 63) & ~uintptr_t(63);
    return reinterpret_cast<float*>(base) + thread_floats * size_t(ith);
}

}  // namespace tessera::cpu
