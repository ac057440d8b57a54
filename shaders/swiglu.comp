// swiglu: y = silu(a) * b (binary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 2
#include "binary.glsl"
