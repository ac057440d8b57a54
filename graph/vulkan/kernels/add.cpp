// add (shaders/add.comp over binary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/add.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_binary("add", *y.src[0], *y.src[1], y, rec); }

const VulkanKernel kAdd{&ops::kAdd, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kAdd);

}  // namespace

}  // namespace tessera::vkk
