// matmul_id's slots grouped by expert, on the GPU (graph/vulkan/kernels/
// matmul_id.cpp), for the tiled matmul (shaders/quant/matmul.glsl with
// EXPERTS) to read each chosen expert's rows once for all its slots:
//   route[e]                 (e <= n_expert) where expert e's slots start in the list
//   route[n_expert + 1 + i]  the list: slot indices j + slots * t, by expert
// One workgroup: counts per expert in shared memory, their prefix sums, then
// each slot takes a place in its expert's part with an atomic. The order
// within a part is arbitrary; each slot's product does not depend on it.
// An id outside [0, n_expert) counts as the last expert, as the matvec
// clamps it.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"

const uint MAX_EXPERTS = 1024;  // matmul_id.cpp: kRouteMaxExperts

layout(binding = 0, scalar) readonly buffer Ids { int ids[]; };
layout(binding = 1, scalar) buffer Route { uint route[]; };

layout(push_constant) uniform Push {
    uint ids_first, n_slots, n_expert, route_first;
} p;

shared uint counts[MAX_EXPERTS];
shared uint cursor[MAX_EXPERTS];

uint expert_of(uint s) { return min(uint(ids[p.ids_first + s]), p.n_expert - 1); }

void main() {
    const uint lid = gl_LocalInvocationID.x, group = gl_WorkGroupSize.x;
    for (uint e = lid; e < p.n_expert; e += group) counts[e] = 0;
    barrier();
    for (uint s = lid; s < p.n_slots; s += group) atomicAdd(counts[expert_of(s)], 1u);
    barrier();
    for (uint e = lid; e < p.n_expert; e += group) {
        uint first = 0;
        for (uint f = 0; f < e; ++f) first += counts[f];
        cursor[e] = first;
        route[p.route_first + e] = first;
    }
    if (lid == 0) route[p.route_first + p.n_expert] = p.n_slots;
    barrier();
    const uint list = p.route_first + p.n_expert + 1;
    for (uint s = lid; s < p.n_slots; s += group) route[list + atomicAdd(cursor[expert_of(s)], 1u)] = s;
}
