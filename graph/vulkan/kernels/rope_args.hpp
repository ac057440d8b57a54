// The rotation's push constants, shared by the rope kernel and the matvecs
// that rotate their rows (shaders/rope.glsl).
#pragma once

#include <cmath>
#include <cstdint>

#include "ops/rope.hpp"

namespace tessera::vkk {

// rope_pair's log2_rate: pair k turns at freq_base^(-2k / n_rot) = exp2(k * log2_rate).
inline float rope_log2_rate(const RopeParams& p) { return float(-2.0 * std::log2(double(p.freq_base)) / p.n_rot); }

// The matvec's push constant rope_firsts (shaders/matmul_args.glsl): where
// the rope's positions and frequency factors start in their bindings, in one
// field (the block is full at 128 bytes). Each is a binding's shift over 4,
// and a shift is under 256 bytes (Vulkan's bound on
// minStorageBufferOffsetAlignment): 16 bits hold it.
inline uint32_t rope_firsts(uint32_t positions_first, uint32_t factors_first) {
    return positions_first | factors_first << 16;
}

}  // namespace tessera::vkk
