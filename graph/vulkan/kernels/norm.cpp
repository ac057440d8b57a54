// rms_norm (shaders/rms_norm.comp): one workgroup per row.
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/kernels/registry.hpp"
#include "ops/norm.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    uint32_t ne0, ne1, ne2, nrows;
    RowLayout x;
    RowLayout y;
    float eps;
};

bool supports(const Tensor&) { return true; }  // every rms_norm: F32 rows

void record(const Tensor& y, Recorder& rec) {
    const Tensor& x = *y.src[0];
    const BoundTensor bx = rec.bind(x), by = rec.bind(y);
    const Push push{uint32_t(y.ne[0]), uint32_t(y.ne[1]), uint32_t(y.ne[2]), uint32_t(y.nrows()),
                    row_layout(x, bx, 4), row_layout(y, by, 4), y.param<RmsNormParams>().eps};
    uint32_t gx, gy;
    rec.split_groups(uint64_t(y.nrows()), gx, gy);
    rec.dispatch("rms_norm", {kGroup}, {bx}, {by}, push, gx, gy);
}

}  // namespace

const VulkanKernel kRmsNorm{"rms_norm", supports, record};

}  // namespace tessera::vkk
