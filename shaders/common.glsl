// Shared by every tessera compute shader (included after #version).
//
// Conventions (graph/vulkan/recorder.hpp):
// - Tensors are storage buffers 0..n-1, inputs first, the output last. A
//   binding starts at an aligned offset at or before the tensor's first
//   byte; push constants carry where the tensor starts ("first", in elements
//   of the binding's array type) and its strides in elements.
// - Large grids are split into x*y workgroups: flat_group() is the index.
// - Specialization constant 0 is the workgroup size.
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(local_size_x_id = 0) in;

uint flat_group() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Elementwise shaders may split each row over gl_NumWorkGroups.z workgroups
// (one row of a token is too little work for one): this invocation's first
// element of the row, and its step.
uint row_part_first() { return gl_WorkGroupID.z * gl_WorkGroupSize.x + gl_LocalInvocationID.x; }
uint row_part_step() { return gl_NumWorkGroups.z * gl_WorkGroupSize.x; }

// Row r of a tensor with rows ne1 x ne2 (x ne3) -> (i1, i2, i3).
uvec3 row_index(uint r, uint ne1, uint ne2) { return uvec3(r % ne1, (r / ne1) % ne2, r / (ne1 * ne2)); }
