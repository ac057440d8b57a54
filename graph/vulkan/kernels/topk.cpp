// topk (shaders/topk.comp): one workgroup per row, each value ranked by
// counting the values before it (a router's rows of tens to hundreds of
// experts; a row of many thousands would be slow). Of an inlined router
// softmax (moe_fusion.hpp): ranks the softmax of the logits it reads; and
// where the router's matvec is inlined too, is that matvec, ranking in its
// last workgroup (moe_matvec.hpp).
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "graph/vulkan/kernels/moe_matvec.hpp"
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
    float scale;  // of an inlined softmax
};

bool supports(const Tensor& y) { return dense_rows(y, 4); }  // x: F32 rows (ops/topk.cpp)

void record(const Tensor& y, Recorder& rec) {
    const RouterSource router = router_source(*y.src[0]);
    if (router.tensor->inlined) return record_router_topk(y, rec);  // the router's matvec, inlined too
    const Tensor& x = *router.tensor;
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const Push push{row_shape(y), uint32_t(x.ne[0]), row_layout(x, bx, 4), row_layout(y, by, 4), router.scale};
    rec.dispatch("topk", {router.logits ? kRouterGroup : kGroup, uint32_t(router.logits)}, {bx}, {by}, push,
                 push.rows.nrows);
}

const VulkanKernel kTopk{&ops::kTopk, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kTopk);

}  // namespace

}  // namespace tessera::vkk
