// silu: y = x / (1 + exp(-x)) (unary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 1
#include "unary.glsl"
