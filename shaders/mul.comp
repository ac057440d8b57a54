// mul: y = a * b (binary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 1
#include "binary.glsl"
