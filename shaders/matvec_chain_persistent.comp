// Every level of issue 40's matvec chain in one dispatch of persistent
// workgroups (matvec_chain.glsl). Workgroup g of G takes row blocks g,
// g + G, g + 2G, ... of each level. It loads the weights of its first block
// of level L, makes them arrive, and only then waits until all G workgroups
// have counted themselves in level L - 1 (the same counters and run numbering
// as the overlap shader, with G workgroups counted a level); then it computes
// that block and loads and computes its further blocks of L directly. Once it
// has counted itself in L it loads its first block of L + 1, so those loads
// overlap the other workgroups finishing L. A workgroup with no block in a
// level (G above dim / ROWS) still counts itself in it.
//
// The workgroups wait for each other within the dispatch, so all G must be
// resident at once: G must not exceed what the GPU holds at a time (on an
// H200, 132 SMs times the workgroups an SM fits at this size's registers and
// shared memory). Otherwise the resident ones poll for workgroups that cannot
// start until they finish, give up after kSpinLimit polls and set the error
// flag (a wrong result, never a hang). Lavapipe runs a workgroup to its end
// on one thread, so the test runs this shader there with G = 1, where every
// wait finds its count complete.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
#define CHAIN_PERSISTENT
#include "matvec_chain.glsl"

// Floats from one vector slot to the next in X and Y: slots 0 and 1 hold the
// two inputs, slot 2 + L level L's output.
layout(constant_id = 3) const uint SLOT = 8;

layout(push_constant) uniform Push {
    uint input_slot;  // level 0's x: 0 or 1
    uint levels;
} p;

void main() {
    const uint groups = gl_NumWorkGroups.x, group = gl_WorkGroupID.x;
    const uint dim = 8 * PIECES;
    const uint blocks = dim / ROWS;        // row blocks a level
    const uint matrix = dim * PIECES;      // uvec4s a level's matrix
    const bool has_block = group < blocks;  // uniform over the workgroup, like every branch below
    if (has_block) load_weights(0, group * ROWS);
    for (uint level = 0; level < p.levels; ++level) {
        if (has_block) {
            make_loads_arrive();
            wait_for_level_before(level);
            const uint x0 = (level == 0 ? p.input_slot : 1 + level) * (SLOT / 4);
            const uint y0 = (2 + level) * SLOT;
            multiply_and_store(x0, y0, group * ROWS);
            for (uint block = group + groups; block < blocks; block += groups) {
                load_weights(level * matrix, block * ROWS);
                barrier();  // the block before has read partial[]
                multiply_and_store(x0, y0, block * ROWS);
            }
        }
        count_this_workgroup(level);
        if (has_block && level + 1 < p.levels) load_weights((level + 1) * matrix, group * ROWS);
    }
}
