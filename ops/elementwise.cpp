#include "ops/elementwise.hpp"

#include <cmath>

#include "graph/graph.hpp"
#include "kernels/cpu/arith.hpp"
#include "kernels/cpu/silu.hpp"
#include "ops/check.hpp"
#include "ops/op_def.hpp"
#include "ops/row_loop.hpp"

namespace tessera {

namespace {

const float* f32_row(const Tensor& t, RowIndex ri) { return reinterpret_cast<const float*>(row_ptr(t, ri)); }
float* f32_row_out(const Tensor& t, RowIndex ri) { return reinterpret_cast<float*>(row_ptr(t, ri)); }

// Reference and CPU kernel of an op y = f(a, b) with b repeated over a.
template <double (*f)(double, double), void (*kernel)(const float*, const float*, float*, int64_t)>
struct BinaryOp {
    static void reference(const Tensor& y) {
        const Tensor& a = *y.src[0];
        const Tensor& b = *y.src[1];
        for_each_row(y, [&](RowIndex ri) {
            const RowIndex rb = repeated(b, ri);
            for (int64_t i = 0; i < y.ne[0]; ++i)
                element<float>(y, i, ri) = float(f(element<float>(a, i, ri), element<float>(b, i, rb)));
        });
    }
    static void eval_cpu(const Tensor& y, const CpuContext& ctx) {
        const Tensor& a = *y.src[0];
        const Tensor& b = *y.src[1];
        for_my_rows(y, ctx.team, [&](RowIndex ri) {
            kernel(f32_row(a, ri), f32_row(b, repeated(b, ri)), f32_row_out(y, ri), y.ne[0]);
        });
    }
};

OpCost elementwise_cost(const Tensor& y) {
    return {.flops = double(y.nelements()), .bytes = 4.0 * double(y.nelements()) * double(y.src.size() + 1)};
}

double plus(double a, double b) { return a + b; }
double times(double a, double b) { return a * b; }
double silu_of(double x) { return x / (1.0 + std::exp(-x)); }
double swiglu_of(double gate, double up) { return silu_of(gate) * up; }

using Add = BinaryOp<plus, cpu::add>;
using Mul = BinaryOp<times, cpu::mul>;
using Swiglu = BinaryOp<swiglu_of, cpu::swiglu>;

const OpDef kAdd{.name = "add", .reference = Add::reference, .eval_cpu = Add::eval_cpu, .cost = elementwise_cost};
const OpDef kMul{.name = "mul", .reference = Mul::reference, .eval_cpu = Mul::eval_cpu, .cost = elementwise_cost};
const OpDef kSwiglu{
    .name = "swiglu", .reference = Swiglu::reference, .eval_cpu = Swiglu::eval_cpu, .cost = elementwise_cost};

void scale_reference(const Tensor& y) {
    const float s = y.param<ScaleParams>().s;
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i) element<float>(y, i, ri) = s * element<float>(*y.src[0], i, ri);
    });
}
void scale_cpu(const Tensor& y, const CpuContext& ctx) {
    const float s = y.param<ScaleParams>().s;
    for_my_rows(y, ctx.team, [&](RowIndex ri) { cpu::scale(f32_row(*y.src[0], ri), s, f32_row_out(y, ri), y.ne[0]); });
}
const OpDef kScale{.name = "scale", .reference = scale_reference, .eval_cpu = scale_cpu, .cost = elementwise_cost};

void silu_reference(const Tensor& y) {
    for_each_row(y, [&](RowIndex ri) {
        for (int64_t i = 0; i < y.ne[0]; ++i) element<float>(y, i, ri) = float(silu_of(element<float>(*y.src[0], i, ri)));
    });
}
void silu_cpu(const Tensor& y, const CpuContext& ctx) {
    for_my_rows(y, ctx.team, [&](RowIndex ri) { cpu::silu(f32_row(*y.src[0], ri), f32_row_out(y, ri), y.ne[0]); });
}
const OpDef kSilu{.name = "silu", .reference = silu_reference, .eval_cpu = silu_cpu, .cost = elementwise_cost};

Tensor* binary(const OpDef& op, Tensor* a, Tensor* b) {
    Graph& g = graph_of({a, b}, op.name);
    check::type(op.name, *a, GgmlType::F32);
    check::type(op.name, *b, GgmlType::F32);
    check::rows_contiguous(op.name, *a);
    check::rows_contiguous(op.name, *b);
    check::dim(op.name, *b, 0, a->ne[0], "the row length of " + a->name);
    check::broadcastable(op.name, *a, *b);
    return g.add_node(op, GgmlType::F32, a->ne, {a, b});
}

Tensor* unary(const OpDef& op, Tensor* x, std::any params = {}) {
    Graph& g = graph_of({x}, op.name);
    check::type(op.name, *x, GgmlType::F32);
    check::rows_contiguous(op.name, *x);
    return g.add_node(op, GgmlType::F32, x->ne, {x}, std::move(params));
}

}  // namespace

Tensor* add(Tensor* a, Tensor* b) { return binary(kAdd, a, b); }
Tensor* mul(Tensor* a, Tensor* b) { return binary(kMul, a, b); }
Tensor* swiglu(Tensor* gate, Tensor* up) {
    graph_of({gate, up}, "swiglu");
    check::same_shape("swiglu", *gate, *up);
    return binary(kSwiglu, gate, up);
}
Tensor* scale(Tensor* x, float s) { return unary(kScale, x, ScaleParams{s}); }
Tensor* silu(Tensor* x) { return unary(kSilu, x); }

}  // namespace tessera
