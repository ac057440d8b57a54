// A level of issue 40's matvec chain that loads its weights, then waits on
// the level before's counter instead of a barrier (matvec_chain.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#define CHAIN_OVERLAP
#include "matvec_chain.glsl"
