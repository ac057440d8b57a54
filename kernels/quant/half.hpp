// IEEE binary16 and bfloat16 conversions, bit-exact and independent of the
// compiler's _Float16 support. Rounding is round-to-nearest-even, as the
// hardware conversion instructions (F16C vcvtps2ph with imm 0) do.
#pragma once

#include <bit>
#include <cstdint>

namespace tessera {

constexpr float fp16_to_fp32(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    const uint32_t mant = h & 0x3ffu;
    if (exp == 0x1f)  // inf / nan: keep the payload
        return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
    if (exp != 0)
        return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
    // Zero or subnormal: value = mant * 2^-24, exact in float.
    const float magnitude = float(mant) * (1.0f / 16777216.0f);
    return sign ? -magnitude : magnitude;
}

constexpr uint16_t fp32_to_fp16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    const uint16_t sign = uint16_t((x >> 16) & 0x8000u);
    const uint32_t abs = x & 0x7fffffffu;
    if (abs > 0x7f800000u) return uint16_t(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // nan
    if (abs >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
    if (abs < 0x38800000u) {
        // Result is subnormal (or zero): scale so the ulp is 2^-24, round half-even.
        if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
        const uint32_t e = abs >> 23;
        const uint32_t m = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126u - e;  // 14..24
        uint32_t q = m >> shift;
        const uint32_t rem = m & ((1u << shift) - 1u);
        const uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) ++q;
        return uint16_t(sign | q);
    }
    // Normal: rebias the exponent and round the 13 dropped mantissa bits half-even.
    uint32_t r = abs - 0x38000000u;
    r += 0xfffu + ((r >> 13) & 1u);
    return uint16_t(sign | (r >> 13));
}

constexpr float bf16_to_fp32(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

constexpr uint16_t fp32_to_bf16(float f) {
    const uint32_t x = std::bit_cast<uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet nan
    return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace tessera
