// topk (shaders/topk.comp): one workgroup per row, each value ranked by
// counting the values before it (a router's rows of tens to hundreds of
// experts; a row of many thousands would be slow).
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/topk.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 64;

struct Push {
    RowShape rows;
    uint32_t n;
    RowLayout x;
    RowLayout y;
};

bool supports(const Tensor& y) { return dense_rows(y, 4); }  // x: F32 rows (ops/topk.cpp)

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const Push push{row_shape(y), uint32_t(x.ne[0]), row_layout(x, bx, 4), row_layout(y, by, 4)};
    rec.dispatch("topk", {kGroup}, {bx}, {by}, push, push.rows.nrows);
}

const VulkanKernel kTopk{&ops::kTopk, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kTopk);

}  // namespace

}  // namespace tessera::vkk
