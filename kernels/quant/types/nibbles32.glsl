// The 4-bit values of a 32-value block packed as Q4_0's: value j in the low
// nibble of qs[j], value j + 16 in its high nibble. Q4_1, Q5_0, Q5_1 and
// IQ4_NL store them so, and IQ4_XS each sub-block of 32; all read qs as
// words (little-endian).
// Values i..i+3 (i a multiple of 4), as the 4 bytes of a word, from the word
// of qs bytes i % 16..i % 16 + 3.
uint nibbles4(uint qs, uint i) { return qs >> (i % 32 / 16 * 4) & 0x0F0F0F0Fu; }
// Q5_0's and Q5_1's bit 4 of 4 values (bits 0..3 of `bits`) at bit 4 of
// each byte of a word.
uint fifth_bits4(uint bits) {
    const uint h = bits & 0xFu;
    return ((h | h << 7 | h << 14 | h << 21) & 0x01010101u) << 4;
}
