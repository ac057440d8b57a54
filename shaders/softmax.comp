// softmax without a mask (softmax.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define CAUSAL 0
#include "softmax.glsl"
