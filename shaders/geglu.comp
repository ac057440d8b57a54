// geglu: y = gelu_tanh(a) * b (binary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 3
#include "binary.glsl"
