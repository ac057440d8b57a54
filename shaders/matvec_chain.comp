// A level of issue 40's matvec chain, levels separated by pipeline barriers
// (matvec_chain.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "matvec_chain.glsl"
