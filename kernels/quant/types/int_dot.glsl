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

// Conversions between small integers and floats without the int <-> float
// instructions, which run at a quarter of the float rate on NVIDIA: the
// float 1.5 * 2^23 + v holds the integer v in its low mantissa bits.
const float kIntMagic = 12582912.0;  // 1.5 * 2^23, bits 0x4B400000

// v as a float, exactly, for |v| < 2^22.
float small_int_float(int v) { return intBitsToFloat(v + 0x4B400000) - kIntMagic; }

// v rounded to integers (to nearest, ties to even), for |v| < 2^22.
ivec4 round_ints(vec4 v) { return floatBitsToInt(v + kIntMagic) - 0x4B400000; }

// The low bytes of v's 4 integers, packed (v within [-128, 127]: signed bytes).
uint pack_bytes(ivec4 v) {
    const uvec4 b = uvec4(v) & 0xFFu;
    return b.x | b.y << 8 | b.z << 16 | b.w << 24;
}

// v rounded to integers as 4 signed bytes, for v within [-127.5, 127.5]
// (x's pieces scaled by 127 / their largest magnitude).
uint round_bytes(vec4 v) { return pack_bytes(round_ints(v)); }
