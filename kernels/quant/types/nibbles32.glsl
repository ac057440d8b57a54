// The 4-bit values of a 32-value block packed as Q4_0's: value j in the low
// nibble of qs[j], value j + 16 in its high nibble. Q4_0, Q4_1, Q5_0, Q5_1
// and IQ4_NL store them so. Included after the type's weights[] (whose Block
// has qs[16]).
uvec4 nibbles4(uint b, uint i) {  // values i..i+3 of block b (i a multiple of 4)
    const uint j = i % 16, shift = i % 32 / 16 * 4;
    const uvec4 bytes = uvec4(weights[b].qs[j], weights[b].qs[j + 1], weights[b].qs[j + 2], weights[b].qs[j + 3]);
    return (bytes >> shift) & 0xFu;
}
