// scale: y = s * x (unary.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define OP 0
#include "unary.glsl"
