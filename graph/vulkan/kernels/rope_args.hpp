// The rotation's push constant, shared by the rope kernel and the matvec that
// rotates its rows (shaders/rope.glsl).
#pragma once

#include <cmath>

#include "ops/rope.hpp"

namespace tessera::vkk {

// rope_pair's log2_rate: pair k turns at freq_base^(-2k / n_rot) = exp2(k * log2_rate).
inline float rope_log2_rate(const RopeParams& p) { return float(-2.0 * std::log2(double(p.freq_base)) / p.n_rot); }

}  // namespace tessera::vkk
