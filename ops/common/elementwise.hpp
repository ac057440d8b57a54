// What the elementwise ops (add, mul, scale, silu, swiglu) share: the rules
// of their builders, their cost, and the reference of y = f(a, b) with b's
// rows repeated over a.
#pragma once

#include <any>
#include <cmath>

#include "graph/op_def.hpp"
#include "graph/row_loop.hpp"
#include "graph/tensor.hpp"

namespace tessera {

// A node of op computing a op b: both F32 with contiguous rows, b.ne0 ==
// a.ne0 and every other dimension of b dividing a's.
Tensor* binary_node(const OpDef& op, Tensor* a, Tensor* b);
// A node of op computing op(x): F32 with contiguous rows.
Tensor* unary_node(const OpDef& op, Tensor* x, std::any params = {});

OpCost elementwise_cost(const Tensor& y);

inline double silu_of(double x) { return x / (1.0 + std::exp(-x)); }

// y = f(a, b) with b's rows repeated over a: f in double, rounded once.
template <double (*f)(double, double)>
void binary_reference(const Tensor& y) {
    const Tensor& a = *y.src[0];
    const Tensor& b = *y.src[1];
    for_each_row(y, [&](RowIndex ri) {
        const RowIndex rb = repeated(b, ri);
        for (int64_t i = 0; i < y.ne[0]; ++i)
            element<float>(y, i, ri) = float(f(element<float>(a, i, ri), element<float>(b, i, rb)));
    });
}

}  // namespace tessera
