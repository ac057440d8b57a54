// add (shaders/add.comp over binary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "ops/add.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) {
    if (const MoeSumAdd f = moe_sum_of_add(y); f.sum) return record_moe_sum(*f.sum, f.addend, y, rec);  // moe_fusion.hpp
    record_binary("add", *y.src[0], *y.src[1], y, rec);
}

const VulkanKernel kAdd{&ops::kAdd, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kAdd);

}  // namespace

}  // namespace tessera::vkk
