// Row iteration shared by the op kernels: rows are indexed (i1, i2, i3) over
// ne[1..3]; a flat index r = i1 + ne1*(i2 + ne2*i3) lets a thread team split them.
#pragma once

#include <cstdint>

#include "graph/tensor.hpp"
#include "kernels/cpu/thread_team.hpp"

namespace tessera {

struct RowIndex {
    int64_t i1, i2, i3;
};

inline RowIndex row_index(const Tensor& t, int64_t r) {
    return {r % t.ne[1], (r / t.ne[1]) % t.ne[2], r / (t.ne[1] * t.ne[2])};
}

// Calls f(RowIndex) for every row of t (reference code: one thread).
template <class F>
void for_each_row(const Tensor& t, F&& f) {
    for (int64_t r = 0; r < t.nrows(); ++r) f(row_index(t, r));
}

// Calls f(RowIndex) for this thread's share of the rows of t.
template <class F>
void for_my_rows(const Tensor& t, const cpu::ThreadTeam& team, F&& f) {
    const auto [begin, end] = team.split(t.nrows());
    for (int64_t r = begin; r < end; ++r) f(row_index(t, r));
}

// The row of b that meets row ri of a tensor b is repeated over (add's second
// operand, matmul's addend).
inline RowIndex repeated(const Tensor& b, RowIndex ri) { return {ri.i1 % b.ne[1], ri.i2 % b.ne[2], ri.i3 % b.ne[3]}; }

// Address of row ri of t, and of element i0 of an F32/I32 row.
inline char* row_ptr(const Tensor& t, RowIndex ri) { return t.row(ri.i1, ri.i2, ri.i3); }
template <class T>
T& element(const Tensor& t, int64_t i0, RowIndex ri) {
    return *reinterpret_cast<T*>(row_ptr(t, ri) + i0 * t.nb[0]);
}

}  // namespace tessera
