# Whether the glslangValidator found compiles the packed 8-bit integer dot
# products of kernels/quant/types/int_dot.glsl (SPIR-V instructions declared
# through GL_EXT_spirv_intrinsics, as glslang 12 has no
# GL_EXT_integer_dot_product): sets TESSERA_VULKAN_INT_DOT. Debian 12's
# glslang 12 does.
include("${CMAKE_CURRENT_LIST_DIR}/glslang_probe.cmake")

tessera_glslang_probe(TESSERA_VULKAN_INT_DOT int_dot_probe [=[
#version 450
#extension GL_GOOGLE_include_directive : require
#include "int_dot.glsl"
layout(local_size_x = 32) in;
layout(binding = 0) buffer Data { uint v[]; };
void main() {
    const uint i = gl_GlobalInvocationID.x;
    v[i] = uint(sdot4(v[i], v[i + 1]) + sudot4(v[i], v[i + 1]));
}
]=] "Vulkan integer-dot matvec (SPV_KHR_integer_dot_product)")
