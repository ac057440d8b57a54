// GCC 12 reports its own _mm512_undefined_ps() inside the AVX-512 intrinsics
// that xsimd's max/exp inline here as maybe-uninitialized (GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "kernels/cpu/attention_kernel.hpp"

#include <algorithm>
#include <limits>

#include "kernels/cpu/attention_f16.hpp"

namespace tessera::cpu {
namespace {

using attention_detail::F16Ops;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// q·k register block: 2 row batches x 4 positions = 8 accumulators (fits 16 registers).
constexpr int64_t kQkPositions = 4;
// p·V register block: up to 2 rows x 4 batches of head_dim.
constexpr int64_t kPvChunks = 4;

// kv rows as F32: rows of the cache itself (F32) or of a converted tile (F16).
struct RowsF32 {
    const float* base;
    int64_t stride;  // floats
    const float* row(int64_t t) const { return base + t * stride; }
};

// Runs work items for one thread. A row is one (query, head) pair of the item,
// row = (query - q_begin) * heads + (head - head_begin), so rows of one query
// are adjacent and share their causal bound. Queries and scores are stored
// transposed (row index fastest), which makes the online softmax a batch
// operation across rows and needs no horizontal sums anywhere.
template <class Arch>
class ItemRunner {
public:
    ItemRunner(const AttentionArgs& a, const AttentionPlan& plan, float* scratch)
        : a_(a),
          d_(a.head_dim),
          rows_(plan.rows),
          tile_(plan.tile),
          f16_(a.kv_type == GgmlType::F16),
          round_(f16_ && a.round_like_ggml),
          qt_(scratch + plan.qt_offset),
          s_(scratch + plan.s_offset),
          acc_(scratch + plan.acc_offset),
          k_tile_(scratch + plan.k_offset),
          v_tile_(scratch + plan.v_offset),
          m_(scratch + plan.m_offset),
          l_(scratch + plan.l_offset),
          alpha_(scratch + plan.alpha_offset),
          bound_(scratch + plan.bound_offset),
          low_(scratch + plan.low_offset) {}

    void run(const AttentionItem& it) {
        const auto [first, last] = load_queries(it);
        const char* k = static_cast<const char*>(a_.k) + it.kv_head * a_.k_head_stride;
        const char* v = static_cast<const char*>(a_.v) + it.kv_head * a_.v_head_stride;
        for (int64_t j0 = first; j0 <= last; j0 += tile_) {
            const int64_t nt = std::min(tile_, last + 1 - j0);
            const RowsF32 keys = kv_rows(k, a_.k_pos_stride, j0, nt, k_tile_);
            const RowsF32 values = kv_rows(v, a_.v_pos_stride, j0, nt, v_tile_);
            int64_t rb = 0;
            for (; rb + 2 <= batches_; rb += 2) scores<2>(keys, rb, j0, nt);
            if (rb < batches_) scores<1>(keys, rb, j0, nt);
            for (rb = 0; rb < batches_; ++rb) softmax_update(rb, j0, nt);
            accumulate_values(values, j0, nt);
        }
        store_outputs(it);
    }

private:
    using Batch = xsimd::batch<float, Arch>;
    static constexpr int64_t W = Batch::size;

    // Fills qt_ and the row state; returns the kv positions [first, last]
    // some row of the item sees (last < first: none).
    VisiblePositions load_queries(const AttentionItem& it) {
        n_rows_ = (it.q_end - it.q_begin) * it.heads;
        batches_ = (n_rows_ + W - 1) / W;
        VisiblePositions all{std::numeric_limits<int64_t>::max(), -1};
        for (int64_t r = 0; r < batches_ * W; ++r) {
            if (r >= n_rows_) {  // padding rows: zero queries that see nothing
                for (int64_t d = 0; d < d_; ++d) qt_[d * rows_ + r] = 0.0f;
                bound_[r] = -1.0f;
                low_[r] = 0.0f;
                m_[r] = kNegInf;
                l_[r] = 0.0f;
                continue;
            }
            const int64_t i = it.q_begin + r / it.heads;
            const float* q = query_row(i, it.head_begin + r % it.heads);
            for (int64_t d = 0; d < d_; ++d) qt_[d * rows_ + r] = q[d];
            const VisiblePositions seen = visible_positions(a_, i);
            if (seen.count() > 0) all = {std::min(all.first, seen.first), std::max(all.last, seen.last)};
            // First and last visible positions (last < first: none); exact below 2^24.
            bound_[r] = seen.count() > 0 ? float(seen.last) : -1.0f;
            low_[r] = float(seen.first);
            m_[r] = kNegInf;
            l_[r] = 0.0f;
            std::fill_n(acc_ + r * d_, d_, 0.0f);
        }
        if (round_)
            for (int64_t d = 0; d < d_; ++d)
                for (int64_t o = 0; o < batches_ * W; o += W) {
                    float* q = qt_ + d * rows_ + o;
                    F16Ops<Arch>::round(Batch::load_aligned(q)).store_aligned(q);
                }
        return all;
    }

    const float* query_row(int64_t i, int64_t h) const {
        return reinterpret_cast<const float*>(reinterpret_cast<const char*>(a_.q) + i * a_.q_token_stride +
                                              h * a_.q_head_stride);
    }

    // The rows of positions j0 .. j0 + nt - 1. F16 rows are converted into the
    // tile. F32 rows are read in place when only one row batch uses them and
    // they do not wrap around the ring; otherwise they are copied too, because
    // cache rows a power-of-two stride apart share few L1 sets and evict each other.
    RowsF32 kv_rows(const char* head, size_t pos_stride, int64_t j0, int64_t nt, float* tile) const {
        const int64_t row0 = kv_row(a_, j0);
        if (!f16_ && batches_ == 1 && row0 + nt <= a_.n_kv)
            return {reinterpret_cast<const float*>(head + row0 * pos_stride), int64_t(pos_stride / sizeof(float))};
        for (int64_t t = 0; t < nt; ++t) {
            const char* row = head + kv_row(a_, j0 + t) * pos_stride;
            if (f16_)
                F16Ops<Arch>::to_f32(reinterpret_cast<const uint16_t*>(row), tile + t * d_, d_);
            else
                std::copy_n(reinterpret_cast<const float*>(row), d_, tile + t * d_);
        }
        return {tile, d_};
    }

    // Positions of this tile that row batches [rb, rb + nrb) see.
    int64_t tile_visible(int64_t rb, int64_t nrb, int64_t j0, int64_t nt) const {
        const float last = *std::max_element(bound_ + rb * W, bound_ + (rb + nrb) * W);
        return std::clamp(int64_t(last) + 1 - j0, int64_t(0), nt);
    }

    // s_[t][row] = q(row)·k(j0 + t) for row batches [rb, rb + NRB), up to the last visible position.
    template <int NRB>
    void scores(const RowsF32& keys, int64_t rb, int64_t j0, int64_t nt) {
        const int64_t end = tile_visible(rb, NRB, j0, nt);
        int64_t t = 0;
        for (; t + kQkPositions <= end; t += kQkPositions) score_block<NRB, kQkPositions>(keys, rb, t);
        for (; t < end; ++t) score_block<NRB, 1>(keys, rb, t);
    }

    template <int NRB, int NP>
    void score_block(const RowsF32& keys, int64_t rb, int64_t t) {
        Batch acc[NRB][NP];
        const float* k[NP];
        for (int p = 0; p < NP; ++p) {
            k[p] = keys.row(t + p);
            for (int b = 0; b < NRB; ++b) acc[b][p] = Batch(0.0f);
        }
        const float* q = qt_ + rb * W;
        const int64_t dim = d_, stride = rows_;  // locals: members would be reloaded around the stores
        for (int64_t d = 0; d < dim; ++d, q += stride) {
            Batch qb[NRB];
            for (int b = 0; b < NRB; ++b) qb[b] = Batch::load_aligned(q + b * W);
            for (int p = 0; p < NP; ++p) {
                const Batch kp(k[p][d]);
                for (int b = 0; b < NRB; ++b) acc[b][p] = xsimd::fma(kp, qb[b], acc[b][p]);
            }
        }
        for (int p = 0; p < NP; ++p)
            for (int b = 0; b < NRB; ++b) acc[b][p].store_aligned(s_ + (t + p) * rows_ + (rb + b) * W);
    }

    // Online softmax step for one row batch: scale and mask the tile's scores,
    // raise the running max, turn scores into probabilities exp(s - max) in
    // place, and record the factor alpha that rescales the older sum and outputs.
    void softmax_update(int64_t rb, int64_t j0, int64_t nt) {
        const int64_t end = tile_visible(rb, 1, j0, nt);
        if (end == 0) return;  // no row of the batch sees this tile; its rows skip it in accumulate_values
        const int64_t o = rb * W;
        const Batch bound = Batch::load_aligned(bound_ + o), low = Batch::load_aligned(low_ + o);
        const Batch scale(a_.scale), neg_inf(kNegInf);
        const bool capped = a_.softcap > 0.0f;
        const Batch cap(a_.softcap), inv_cap(capped ? 1.0f / a_.softcap : 0.0f);
        Batch tile_max = neg_inf;
        for (int64_t t = 0; t < end; ++t) {
            float* s = s_ + t * rows_ + o;
            Batch scaled = Batch::load_aligned(s) * scale;
            if (capped) scaled = cap * xsimd::tanh(scaled * inv_cap);
            const Batch j(float(j0 + t));
            const Batch masked = xsimd::select(j <= bound && j >= low, scaled, neg_inf);
            masked.store_aligned(s);
            tile_max = xsimd::max(tile_max, masked);
        }
        const Batch m_old = Batch::load_aligned(m_ + o);
        const Batch m_new = xsimd::max(m_old, tile_max);
        // A row that has seen nothing yet keeps max -inf; subtract 0 instead so exp gives 0, not NaN.
        const Batch shift = xsimd::select(m_new == neg_inf, Batch(0.0f), m_new);
        const Batch alpha = xsimd::exp(m_old - shift);
        Batch sum(0.0f);
        for (int64_t t = 0; t < end; ++t) {
            float* s = s_ + t * rows_ + o;
            Batch p = xsimd::exp(Batch::load_aligned(s) - shift);
            sum += p;
            if (round_) p = F16Ops<Arch>::round(p);
            p.store_aligned(s);
        }
        xsimd::fma(Batch::load_aligned(l_ + o), alpha, sum).store_aligned(l_ + o);
        m_new.store_aligned(m_ + o);
        alpha.store_aligned(alpha_ + o);
    }

    // acc(row) = alpha(row) * acc(row) + sum over the row's visible positions of p(t, row) * v(t).
    void accumulate_values(const RowsF32& values, int64_t j0, int64_t nt) {
        auto visible = [&](int64_t r) { return std::clamp(int64_t(bound_[r]) + 1 - j0, int64_t(0), nt); };
        for (int64_t r = 0; r < n_rows_;) {
            const int64_t end0 = visible(r);
            if (end0 == 0) {
                ++r;
                continue;
            }
            rescale(r);
            const int64_t end1 = r + 1 < n_rows_ ? visible(r + 1) : 0;
            if (end1 == 0) {
                accumulate_rows<1>(values, {r}, 0, end0);
                ++r;
                continue;
            }
            rescale(r + 1);
            const int64_t common = std::min(end0, end1);
            accumulate_rows<2>(values, {r, r + 1}, 0, common);
            if (end0 > common) accumulate_rows<1>(values, {r}, common, end0);
            if (end1 > common) accumulate_rows<1>(values, {r + 1}, common, end1);
            r += 2;
        }
    }

    void rescale(int64_t r) {
        const float alpha = alpha_[r];
        if (alpha == 1.0f) return;
        float* acc = acc_ + r * d_;
        int64_t d = 0;
        for (; d + W <= d_; d += W) (Batch::load_unaligned(acc + d) * Batch(alpha)).store_unaligned(acc + d);
        for (; d < d_; ++d) acc[d] *= alpha;
    }

    template <int NR>
    void accumulate_rows(const RowsF32& values, const int64_t (&rows)[NR], int64_t t0, int64_t t1) {
        const int64_t chunks = d_ / W;
        for (int64_t c = 0; c < chunks; c += kPvChunks) {
            switch (std::min(kPvChunks, chunks - c)) {
                case 1: accumulate_chunks<NR, 1>(values, rows, c * W, t0, t1); break;
                case 2: accumulate_chunks<NR, 2>(values, rows, c * W, t0, t1); break;
                case 3: accumulate_chunks<NR, 3>(values, rows, c * W, t0, t1); break;
                default: accumulate_chunks<NR, 4>(values, rows, c * W, t0, t1); break;
            }
        }
        for (int i = 0; i < NR; ++i) {  // head_dim tail shorter than a batch
            float* acc = acc_ + rows[i] * d_;
            for (int64_t t = t0; t < t1; ++t) {
                const float p = s_[t * rows_ + rows[i]];
                const float* v = values.row(t);
                for (int64_t d = chunks * W; d < d_; ++d) acc[d] += p * v[d];
            }
        }
    }

    template <int NR, int NC>
    void accumulate_chunks(const RowsF32& values, const int64_t (&rows)[NR], int64_t d0, int64_t t0, int64_t t1) {
        Batch acc[NR][NC];
        for (int i = 0; i < NR; ++i)
            for (int c = 0; c < NC; ++c) acc[i][c] = Batch::load_unaligned(acc_ + rows[i] * d_ + d0 + c * W);
        const float* p_row = s_ + t0 * rows_;
        const int64_t stride = rows_;
        for (int64_t t = t0; t < t1; ++t, p_row += stride) {
            const float* v = values.row(t) + d0;
            Batch vb[NC];
            for (int c = 0; c < NC; ++c) vb[c] = Batch::load_unaligned(v + c * W);
            for (int i = 0; i < NR; ++i) {
                const Batch p(p_row[rows[i]]);
                for (int c = 0; c < NC; ++c) acc[i][c] = xsimd::fma(p, vb[c], acc[i][c]);
            }
        }
        for (int i = 0; i < NR; ++i)
            for (int c = 0; c < NC; ++c) acc[i][c].store_unaligned(acc_ + rows[i] * d_ + d0 + c * W);
    }

    void store_outputs(const AttentionItem& it) const {
        for (int64_t r = 0; r < n_rows_; ++r) {
            const int64_t i = it.q_begin + r / it.heads, h = it.head_begin + r % it.heads;
            float* out = reinterpret_cast<float*>(reinterpret_cast<char*>(a_.out) + i * a_.out_token_stride +
                                                  h * a_.out_head_stride);
            const float inv = l_[r] > 0.0f ? 1.0f / l_[r] : 0.0f;  // a row that saw nothing: zeros
            const float* acc = acc_ + r * d_;
            int64_t d = 0;
            for (; d + W <= d_; d += W) (Batch::load_unaligned(acc + d) * Batch(inv)).store_unaligned(out + d);
            for (; d < d_; ++d) out[d] = acc[d] * inv;
        }
    }

    const AttentionArgs& a_;
    const int64_t d_, rows_, tile_;
    const bool f16_, round_;
    float *const qt_, *const s_, *const acc_, *const k_tile_, *const v_tile_;
    float *const m_, *const l_, *const alpha_, *const bound_, *const low_;
    int64_t n_rows_ = 0, batches_ = 0;
};

}  // namespace

template <class Arch>
void AttentionKernel::operator()(Arch, const AttentionArgs& a, const AttentionPlan& plan, void* work,
                                 const ThreadTeam& team) const {
    const auto [begin, end] = plan.thread_items(a, team);
    if (begin >= end) return;
    ItemRunner<Arch> runner(a, plan, plan.thread_scratch(work, team.ith));
    for (int64_t k = begin; k < end; ++k) runner.run(plan.item(a, k));
}

template void AttentionKernel::operator()<TESSERA_SIMD_ARCH>(TESSERA_SIMD_ARCH, const AttentionArgs&,
                                                             const AttentionPlan&, void*, const ThreadTeam&) const;

}  // namespace tessera::cpu
