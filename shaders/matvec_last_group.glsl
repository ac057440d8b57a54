// What a matvec's epilogues share (shaders/matvec_moe.glsl,
// matvec_head_norm.glsl): work that needs rows of several workgroups is done
// by the workgroup that finishes them last (last_to_finish.glsl), in the
// same dispatch, instead of by a dispatch and a level of its own.
//
// Included by matvec.glsl after matmul_args.glsl, before the epilogues;
// includes reduce.glsl and last_to_finish.glsl.
const uint NO_EPILOGUE = 0, ROUTER_TOPK = 1, EXPERT_SUM = 2, ROUTER_PARTIALS = 3, HEAD_NORM_ROPE = 4;
layout(constant_id = 11) const uint EPILOGUE = NO_EPILOGUE;

// Y again, as the matvec stores it when it has an epilogue.
layout(binding = 7, scalar) coherent buffer Stored { float stored[]; };
layout(binding = 9) coherent buffer Counters { uint counters[]; };  // from the binding's start; else y again

#define REDUCE_PARTIALS                                                                      \
    (EPILOGUE == ROUTER_TOPK || EPILOGUE == ROUTER_PARTIALS || EPILOGUE == HEAD_NORM_ROPE || \
             EPILOGUE == EXPERT_SUM                                                          \
         ? gl_WorkGroupSize.x                                                                \
         : 1)
#include "reduce.glsl"
#include "last_to_finish.glsl"
