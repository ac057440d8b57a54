// What the decode attention (shaders/attention_decode.glsl) is made for:
// attention.cpp picks it, and head_norm_rope.cpp hands it query rows to
// normalize and rotate as it stages them.
#pragma once

#include <cstdint>

namespace tessera::vkk {

// Query tokens up to which attention runs the decode shader.
constexpr int64_t kDecodeMaxTokens = 4;
// Its workgroup and keys per chunk (also the longest query row it stages
// raw, for its own norm and rope: Q_NORM_ROPE).
constexpr uint32_t kDecodeGroup = 256, kDecodeChunk = 256;

}  // namespace tessera::vkk
