# Whether the glslangValidator found compiles GL_NV_cooperative_matrix (the
# tensor-core matmul skeletons, shaders/quant/*_coopmat.glsl): sets
# TESSERA_VULKAN_COOPMAT. Debian 12's glslang 12 does; older ones do not.
include("${CMAKE_CURRENT_LIST_DIR}/glslang_probe.cmake")

tessera_glslang_probe(TESSERA_VULKAN_COOPMAT coopmat_probe [=[
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
layout(local_size_x = 32) in;
layout(constant_id = 0) const uint CM = 16;
shared float16_t a[CM * CM];
shared float c[CM * CM];
void main() {
    fcoopmatNV<16, gl_ScopeSubgroup, CM, CM> m;
    coopMatLoadNV(m, a, 0, CM, false);
    fcoopmatNV<32, gl_ScopeSubgroup, CM, CM> acc = fcoopmatNV<32, gl_ScopeSubgroup, CM, CM>(0.0);
    acc = coopMatMulAddNV(m, m, acc);
    coopMatStoreNV(acc, c, 0, CM, true);
}
]=] "Vulkan cooperative-matrix matmul (GL_NV_cooperative_matrix)")
