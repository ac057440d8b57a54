// A chain of square matrix x vector products, y_L = W_L y_(L-1), F16 weights
// and F32 vectors: the experiment of issue 40, whether a level can load its
// weights while the level before it still computes
// (bench/vulkan_overlap_chain.hpp records the levels and times them).
// Included by
//   matvec_chain.comp             one level a dispatch, the levels separated
//                                 by pipeline barriers
//   matvec_chain_overlap.comp     CHAIN_OVERLAP: one level a dispatch, no
//                                 barriers, workgroups wait on counters instead
//   matvec_chain_persistent.comp  CHAIN_PERSISTENT: one dispatch of persistent
//                                 workgroups runs every level, waiting on the
//                                 same counters (its own main, after this file)
//
// A workgroup computes ROWS rows of y at a time (a row block). Its
// invocations first load those rows' weights into registers: row r's dim / 8
// pieces of 8 halves (a uvec4) are spread over the invocations, CHUNKS each,
// neighbours reading neighbouring pieces; dim = 8 * CHUNKS * the workgroup
// size. Only then does it read x. Without CHAIN_OVERLAP those loads still wait
// for the barrier, so the per-level shaders do the same work in the same order
// and differ only in what a level waits for.
//
// With the counters (CHAIN_WAITS), counter[1 + L] counts the workgroups that
// have stored their rows of level L (an atomic add with release after the
// stores), and a workgroup of level L > 0 waits, after its weight loads have
// arrived, until counter[L] has counted every workgroup of the dispatch in
// level L - 1 in this run (an atomic load with acquire). The counters are
// never reset: in the n-th run after they were zeroed a level's counter goes
// from (n - 1) * groups to n * groups, so a workgroup finds n from its own
// level's counter, which it has not counted itself in yet (runs are submitted
// one after another, each waited for). 32-bit counters allow 2^32 / groups
// runs. The wait is bounded: after kSpinLimit polls the workgroup sets
// counter[0] (the error flag, which the host reads) and goes on with whatever
// x holds.
//
// On lavapipe, which runs one dispatch after another, the overlap shader's
// counts are always complete and the wait loop never iterates: the test there
// checks the arithmetic and the counts, not a wait. (A build that counted
// nothing, to exercise the give-up, lost the spinning workgroups' stores on
// lavapipe, Mesa 22.3, flag included; on a GPU the benchmark compares each
// mode's result with the barriers' and reads the flag.)
//
// Waiting inside a dispatch for an earlier dispatch assumes that the earlier
// one's workgroups all get to run: a queue launches its dispatches in order
// (NVIDIA's does), so the earliest level not yet finished has every
// workgroup launched or done and never waits behind the spinning ones of
// later levels. The persistent shader's workgroups wait for each other within
// one dispatch, so all of them must be resident at once: see there.
#include "common.glsl"
#if defined(CHAIN_OVERLAP) || defined(CHAIN_PERSISTENT)
#define CHAIN_WAITS
#endif
#ifdef CHAIN_WAITS
// x and y are read and written by different workgroups without a barrier
// between: they are devicecoherent (the Coherent decoration), and the
// atomics and barriers carry acquire and release semantics at device scope.
// The shaders stay in the GLSL450 memory model: declaring the Vulkan one
// (#pragma use_vulkan_memory_model) made lavapipe (Mesa 22.3) compute wrong
// results even with every count complete.
#define CHAIN_COHERENT devicecoherent
#else
#define CHAIN_COHERENT
#endif

layout(constant_id = 1) const uint ROWS = 8;
layout(constant_id = 2) const uint CHUNKS = 1;

// The per-level shaders bind one level's matrix and vectors; the persistent
// one binds every level's matrix and every vector slot, and passes where a
// level's start within them.
layout(binding = 0) readonly buffer W { uvec4 w[]; };  // [dim rows][dim / 8 pieces], a matrix after another
layout(binding = 1) CHAIN_COHERENT readonly buffer X { vec4 x[]; };
layout(binding = 2) CHAIN_COHERENT writeonly buffer Y { float y[]; };
#ifdef CHAIN_WAITS
layout(binding = 3) buffer Counters { uint counter[]; };  // [0] error flag, [1 + L] level L's finished workgroups
#endif

const uint NT = gl_WorkGroupSize.x;
const uint PIECES = CHUNKS * NT;  // per row of W
const uint kSpinLimit = 1u << 16;  // polls: milliseconds on a GPU, a whole chain takes far less

shared float partial[ROWS * NT];  // [row][subgroup]: NT bounds the subgroups
uvec4 weights[ROWS * CHUNKS];     // this invocation's pieces of the row block: [row][chunk]

float dot8(uvec4 h, vec4 a, vec4 b) {
    return dot(vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)), a) +
           dot(vec4(unpackHalf2x16(h.z), unpackHalf2x16(h.w)), b);
}

// Rows row0 .. row0 + ROWS - 1 of the matrix whose first piece is w[matrix].
void load_weights(uint matrix, uint row0) {
    const uint lid = gl_LocalInvocationIndex;
    for (uint r = 0; r < ROWS; ++r)
        for (uint c = 0; c < CHUNKS; ++c) weights[r * CHUNKS + c] = w[matrix + (row0 + r) * PIECES + c * NT + lid];
}

// y[y0 + row0 + r] = row r of the loaded block . x, x from x[x0] (vec4s).
void multiply_and_store(uint x0, uint y0, uint row0) {
    const uint lid = gl_LocalInvocationIndex;
    float sums[ROWS];
    for (uint r = 0; r < ROWS; ++r) sums[r] = 0.0;
    for (uint c = 0; c < CHUNKS; ++c) {
        const uint piece = c * NT + lid;
        const vec4 a = x[x0 + 2 * piece], b = x[x0 + 2 * piece + 1];
        for (uint r = 0; r < ROWS; ++r) sums[r] += dot8(weights[r * CHUNKS + c], a, b);
    }

    for (uint r = 0; r < ROWS; ++r) {
        const float s = subgroupAdd(sums[r]);
        if (subgroupElect()) partial[r * NT + gl_SubgroupID] = s;
    }
    barrier();
    if (lid < ROWS) {
        float s = 0.0;
        for (uint g = 0; g < gl_NumSubgroups; ++g) s += partial[lid * NT + g];
        y[y0 + row0 + lid] = s;
    }
}

#ifdef CHAIN_WAITS
// The loads must have arrived before the wait, not merely been written
// above it: nothing uses them until after it, so a compiler may sink them
// below it (the first measurement could not tell: vulkan-experiments.md).
// A shared store that depends on every loaded word cannot cross the
// workgroup barrier that ends the wait; partial[] is written again, after
// that barrier, before it is read.
void make_loads_arrive() {
    uvec4 folded = uvec4(0);
    for (uint i = 0; i < ROWS * CHUNKS; ++i) folded ^= weights[i];
    if ((folded.x ^ folded.y ^ folded.z ^ folded.w) == 0x5A5A5A5Au) partial[gl_LocalInvocationIndex] = 0.0;
}

// Before this workgroup computes rows of `level`: invocation 0 reads which
// run this is, then waits until every workgroup has counted itself in level
// - 1 in it; the workgroup barrier after it carries that acquire to every
// invocation.
void wait_for_level_before(uint level) {
    if (gl_LocalInvocationIndex == 0) {
        const uint groups = gl_NumWorkGroups.x;
        const uint run =
            atomicLoad(counter[1 + level], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) / groups + 1;
        if (level > 0) {
            uint polls = 0;
            while (polls < kSpinLimit &&
                   atomicLoad(counter[level], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire) <
                       run * groups)
                ++polls;
            if (polls == kSpinLimit)
                atomicOr(counter[0], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
}

// After this workgroup's rows of `level` are stored: the barrier orders every
// invocation's stores before invocation 0's count, which releases them.
void count_this_workgroup(uint level) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    if (gl_LocalInvocationIndex == 0)
        atomicAdd(counter[1 + level], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
}
#endif

#ifndef CHAIN_PERSISTENT
layout(push_constant) uniform Push {
    uint level;  // this dispatch's level, from 0: its counter is counter[1 + level]
} p;

// One row block of one level: the bindings hold just this level's matrix and vectors.
void main() {
    const uint row0 = gl_WorkGroupID.x * ROWS;
    load_weights(0, row0);
#ifdef CHAIN_OVERLAP
    make_loads_arrive();
    wait_for_level_before(p.level);
#endif
    multiply_and_store(0, 0, row0);
#ifdef CHAIN_OVERLAP
    count_this_workgroup(p.level);
#endif
}
#endif
