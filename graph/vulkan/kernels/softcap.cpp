// softcap (shaders/softcap.comp over unary.glsl): see elementwise.hpp.
#include "graph/vulkan/kernels/elementwise.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "ops/softcap.hpp"

namespace tessera::vkk {

namespace {

void record(const Tensor& y, Recorder& rec) { record_unary("softcap", *y.src[0], y, y.param<SoftcapParams>().cap, rec); }

const VulkanKernel kSoftcap{&ops::kSoftcap, f32_dense, record};
[[maybe_unused]] const bool registered = register_kernel(kSoftcap);

}  // namespace

}  // namespace tessera::vkk
