// set_rows: source row i to destination row rows[i] (copy.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define SET_ROWS 1
#include "copy.glsl"
