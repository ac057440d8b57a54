// Causal attention for a few query tokens, scores one key per invocation
// (attention_decode.glsl): for devices without subgroup shuffles.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "attention_decode.glsl"
