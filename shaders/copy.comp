// copy: row i of the source to row i of the destination (copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define SET_ROWS 0
#include "copy.glsl"
