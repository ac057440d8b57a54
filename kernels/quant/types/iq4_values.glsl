// The non-linear 4-bit level table of IQ4_NL and IQ4_XS.
const float kIQ4Values[16] = float[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

vec4 iq4_values(uvec4 idx) { return vec4(kIQ4Values[idx.x], kIQ4Values[idx.y], kIQ4Values[idx.z], kIQ4Values[idx.w]); }
