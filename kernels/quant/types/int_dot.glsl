// Packed 4 x 8-bit integer dot products (SPV_KHR_integer_dot_product; on
// NVIDIA one dp4a each). glslang 12 has no GL_EXT_integer_dot_product, so
// they are declared as SPIR-V instructions (GL_EXT_spirv_intrinsics).
// Only shaders built for devices with shaderIntegerDotProduct include this.
#extension GL_EXT_spirv_intrinsics : require

// The sum of the 4 signed bytes of a times the 4 signed bytes of b (OpSDot).
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4450)
int dot_s8(uint a, uint b, spirv_literal int packed_4x8);

// The sum of the 4 signed bytes of a times the 4 unsigned bytes of b (OpSUDot).
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int dot_su8(uint a, uint b, spirv_literal int packed_4x8);

int sdot4(uint a, uint b) { return dot_s8(a, b, 0); }
int sudot4(uint a, uint b) { return dot_su8(a, b, 0); }
