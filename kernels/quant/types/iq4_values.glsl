// The non-linear 4-bit level table of IQ4_NL and IQ4_XS.
const float kIQ4Values[16] = float[16](-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

// The levels of the 4 indices in the bytes of a word (each below 16).
vec4 iq4_values(uint idx) {
    return vec4(kIQ4Values[idx & 0xFFu], kIQ4Values[idx >> 8 & 0xFFu], kIQ4Values[idx >> 16 & 0xFFu], kIQ4Values[idx >> 24]);
}
