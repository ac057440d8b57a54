// matmul_coopmat.glsl with cooperative matrices of workgroup scope
// (VK_NV_cooperative_matrix2): the driver spreads each multiply over the
// workgroup's subgroups. glslang 12 writes such a shader only as
// GL_NV_cooperative_matrix, for SPIR-V 1.6, and codegen/spirv_coopmat_khr.hpp
// rewrites it into the KHR cooperative matrices the extension takes.
#define WORKGROUP_SCOPE 1
#include "quant/matmul_coopmat.glsl"
