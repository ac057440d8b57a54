// The 4 bytes of a word as floats minus bias, without int-to-float
// conversions (an eighth of the float rate on NVIDIA): 0x4B000000 | b is
// the float 2^23 + b, exactly.
vec4 byte_floats(uint w, float bias) {
    return uintBitsToFloat(((uvec4(w) >> uvec4(0, 8, 16, 24)) & 0xFFu) | 0x4B000000u) - (8388608.0 + bias);
}
// The same for two values below 2^23.
vec2 small_floats(uvec2 v) { return uintBitsToFloat(v | 0x4B000000u) - 8388608.0; }
