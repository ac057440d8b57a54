// What a matvec's epilogues share (shaders/matvec_moe.glsl,
// matvec_head_norm.glsl): work that needs rows of several workgroups is done
// by the workgroup that finishes them last, in the same dispatch, instead of
// by a dispatch and a level of its own. Each workgroup, having stored its
// rows, counts itself done on a counter; the workgroup that completes the
// count reads the rows the others stored and does that work, then sets the
// counter back to zero for the next submission of the recorded command
// buffer. No workgroup waits for another.
//
// Written rows reach the last workgroup through coherent buffers: each
// invocation's stores, then a device-scope memory barrier, then the
// workgroup's barrier, then one atomic add on the counter; the last
// workgroup reads after the add and another memory barrier.
//
// Included by matvec.glsl after matmul_args.glsl, before the epilogues;
// includes reduce.glsl.
const uint NO_EPILOGUE = 0, ROUTER_TOPK = 1, EXPERT_SUM = 2, ROUTER_PARTIALS = 3, HEAD_NORM_ROPE = 4;
layout(constant_id = 11) const uint EPILOGUE = NO_EPILOGUE;

// Y again, as the matvec stores it when it has an epilogue.
layout(binding = 7, scalar) coherent buffer Stored { float stored[]; };
layout(binding = 9) coherent buffer Counters { uint counters[]; };  // from the binding's start; else y again

#define REDUCE_PARTIALS                                                                                  \
    (EPILOGUE == ROUTER_TOPK || EPILOGUE == ROUTER_PARTIALS || EPILOGUE == HEAD_NORM_ROPE || EPILOGUE == EXPERT_SUM \
         ? gl_WorkGroupSize.x                                                                                  \
         : 1)
#include "reduce.glsl"

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
