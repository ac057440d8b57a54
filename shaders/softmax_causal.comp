// softmax with a causal mask from positions (softmax.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define CAUSAL 1
#include "softmax.glsl"
