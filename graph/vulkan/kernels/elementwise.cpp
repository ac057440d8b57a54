// add, mul, swiglu (shaders/binary.comp: with y's fp16 copy where a
// tensor-core matmul reads y, half_copy.hpp) and scale, silu
// (shaders/unary.comp).
#include <algorithm>

#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/registry.hpp"
#include "ops/elementwise.hpp"
#include "ops/op_def.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

// Workgroups per row: about 4 values per invocation, so that a single row
// (one token's) spreads over several compute units.
uint32_t row_parts(const Tensor& y) {
    return uint32_t(std::clamp<int64_t>((y.ne[0] + 4 * kGroup - 1) / (4 * kGroup), 1, 65535));
}

bool f32_dense(const Tensor& node) {
    for (const Tensor* s : node.src)
        if (s->type != GgmlType::F32 || !dense_rows(*s, 4)) return false;
    return node.type == GgmlType::F32 && dense_rows(node, 4);
}

struct BinaryPush {
    RowShape rows;
    RowLayout a;
    RowLayout b;
    uint32_t b_ne1, b_ne2, b_ne3;
    RowLayout y;
};

// y = a op b, b repeated over a.
template <uint32_t Op>
void record_binary_of(const Tensor& a, const Tensor& b, const Tensor& y, Recorder& rec) {
    const BoundTensor ba = rec.bind(a), bb = rec.bind(b), by = rec.bind(y);
    const BinaryPush push{row_shape(y), row_layout(a, ba, 4), row_layout(b, bb, 4), uint32_t(b.ne[1]), uint32_t(b.ne[2]),
                          uint32_t(b.ne[3]), row_layout(y, by, 4)};
    const HalfOutput half = half_output(y, by, rec);
    rec.dispatch("binary", {kGroup, Op, uint32_t(half.wanted)}, {ba, bb}, {by, half.binding}, push, push.rows.nrows,
                 row_parts(y));
    half_output_written(y, by, half, rec);
}

template <uint32_t Op>
void record_binary(const Tensor& y, Recorder& rec) {
    record_binary_of<Op>(*y.src[0], *y.src[1], y, rec);
}

struct UnaryPush {
    RowShape rows;
    RowLayout x;
    RowLayout y;
    float s;
};

template <uint32_t Op>
void record_unary(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const UnaryPush push{row_shape(y), row_layout(x, bx, 4), row_layout(y, by, 4),
                         Op == 0 ? y.param<ScaleParams>().s : 0.0f};
    rec.dispatch("unary", {kGroup, Op}, {bx}, {by}, push, push.rows.nrows, row_parts(y));
}

}  // namespace

void record_add_in_place(const Tensor& y, const Tensor& addend, Recorder& rec) {
    record_binary_of<0>(y, addend, y, rec);
}

const VulkanKernel kAdd{"add", f32_dense, record_binary<0>};
const VulkanKernel kMul{"mul", f32_dense, record_binary<1>};
const VulkanKernel kSwiglu{"swiglu", f32_dense, record_binary<2>};
const VulkanKernel kScale{"scale", f32_dense, record_unary<0>};
const VulkanKernel kSilu{"silu", f32_dense, record_unary<1>};

}  // namespace tessera::vkk
