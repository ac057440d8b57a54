// Causal attention for a few query tokens, each key's score from a few
// invocations' 16-byte loads summed by subgroup shuffles (attention_decode.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_shuffle : require
#define KEY_LANES_BY_SHUFFLE
#include "attention_decode.glsl"
