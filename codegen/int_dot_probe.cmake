# Whether the glslangValidator found compiles the packed 8-bit integer dot
# products of kernels/quant/types/int_dot.glsl (SPIR-V instructions declared
# through GL_EXT_spirv_intrinsics, as glslang 12 has no
# GL_EXT_integer_dot_product): sets TESSERA_VULKAN_INT_DOT. Debian 12's
# glslang 12 does.

set(_probe "${CMAKE_CURRENT_BINARY_DIR}/int_dot_probe.comp")
file(WRITE "${_probe}" [=[
#version 450
#extension GL_GOOGLE_include_directive : require
#include "int_dot.glsl"
layout(local_size_x = 32) in;
layout(binding = 0) buffer Data { uint v[]; };
void main() {
    const uint i = gl_GlobalInvocationID.x;
    v[i] = uint(sdot4(v[i], v[i + 1]) + sudot4(v[i], v[i + 1]));
}
]=])
execute_process(
  COMMAND "${Vulkan_GLSLANG_VALIDATOR_EXECUTABLE}" --target-env vulkan1.2 -I${PROJECT_SOURCE_DIR}/kernels/quant/types
          -o "${_probe}.spv" "${_probe}"
  RESULT_VARIABLE _probe_result
  OUTPUT_QUIET ERROR_QUIET)
if(_probe_result EQUAL 0)
  set(TESSERA_VULKAN_INT_DOT ON)
else()
  set(TESSERA_VULKAN_INT_DOT OFF)
endif()
message(STATUS "tessera Vulkan integer-dot matvec (SPV_KHR_integer_dot_product): ${TESSERA_VULKAN_INT_DOT}")
