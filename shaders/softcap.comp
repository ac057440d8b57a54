// softcap: y = s * tanh(x / s), s the cap (unary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 2
#include "unary.glsl"
