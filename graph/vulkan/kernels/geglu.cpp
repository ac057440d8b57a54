// geglu (shaders/geglu.comp over binary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/geglu.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_binary("geglu", *y.src[0], *y.src[1], y, rec); }

const VulkanKernel kGeglu{&ops::kGeglu, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kGeglu);

}  // namespace

}  // namespace tessera::vkk
