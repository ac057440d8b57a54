#include "graph/vulkan/kernels/elementwise.hpp"

#include <algorithm>

#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/layout.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

// Workgroups per row: about 4 values per invocation, so that a single row
// (one token's) spreads over several compute units.
uint32_t row_parts(const Tensor& y) {
    return uint32_t(std::clamp<int64_t>((y.ne[0] + 4 * kGroup - 1) / (4 * kGroup), 1, 65535));
}

struct BinaryPush {
    RowShape rows;
    RowLayout a;
    RowLayout b;
    uint32_t b_ne1, b_ne2, b_ne3;
    RowLayout y;
};

struct UnaryPush {
    RowShape rows;
    RowLayout x;
    RowLayout y;
    float s;
};

}  // namespace

bool f32_dense(const Tensor& node) {
    for (const Tensor* s : node.src)
        if (s->type != GgmlType::F32 || !dense_rows(*s, 4)) return false;
    return node.type == GgmlType::F32 && dense_rows(node, 4);
}

void record_binary(std::string_view shader, const Tensor& a, const Tensor& b, const Tensor& y, Recorder& rec) {
    const BoundTensor ba = rec.bind(a), bb = rec.bind(b), by = rec.bind(y);
    const BinaryPush push{row_shape(y), row_layout(a, ba, 4), row_layout(b, bb, 4), uint32_t(b.ne[1]), uint32_t(b.ne[2]),
                          uint32_t(b.ne[3]), row_layout(y, by, 4)};
    const HalfOutput half = half_output(y, by, rec);
    rec.dispatch(shader, {kGroup, uint32_t(half.wanted)}, {ba, bb}, {by, half.binding}, push, push.rows.nrows,
                 row_parts(y));
    half_output_written(y, by, half, rec);
}

void record_unary(std::string_view shader, const Tensor& x, const Tensor& y, float s, Recorder& rec) {
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const UnaryPush push{row_shape(y), row_layout(x, bx, 4), row_layout(y, by, 4), s};
    rec.dispatch(shader, {kGroup}, {bx}, {by}, push, push.rows.nrows, row_parts(y));
}

void record_add_in_place(const Tensor& y, const Tensor& addend, Recorder& rec) { record_binary("add", y, addend, y, rec); }

}  // namespace tessera::vkk
