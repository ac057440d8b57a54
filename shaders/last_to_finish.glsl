// How workgroups of one dispatch hand work that needs all of their results
// to the one that finishes last (matvec_last_group.glsl's epilogues,
// moe_router_split.comp): each workgroup, having stored its results, counts
// itself done on a counter; the workgroup that completes the count reads
// what the others stored and does that work, then sets the counter back to
// zero for the next submission of the recorded command buffer. No workgroup
// waits for another.
//
// Stored results reach the last workgroup through coherent buffers: each
// invocation's stores, then a device-scope memory barrier, then the
// workgroup's barrier, then one atomic add on the counter; the last
// workgroup reads after the add and another memory barrier.
//
// The includer declares the counters: a coherent buffer `counters[]` of uint.

shared bool completes;

// Counts this workgroup done on counters[i], one of `of`; true, in every
// invocation, for the workgroup that completes the count.
bool last_to_finish(uint i, uint of) {
    memoryBarrierBuffer();  // this invocation's stores, before the count
    barrier();
    if (gl_LocalInvocationID.x == 0) {
        completes = atomicAdd(counters[i], 1u) == of - 1;
        if (completes) atomicExchange(counters[i], 0u);  // every workgroup has counted
    }
    barrier();
    memoryBarrierBuffer();  // the others' stores, before reading them
    return completes;
}
