// A token's router probabilities inside a MoE kernel (graph/vulkan/kernels/
// moe_fusion.hpp): with ROUTER_SOFTMAX the kernel reads the router's logits
// and computes softmax(scale * logits) itself, in the same steps and with
// the same workgroup size as softmax.glsl, so that each probability is the
// one the softmax node would have stored; without it, the probabilities.
// Included after common.glsl and reduce.glsl; the includer declares
// `router[]`, the logits' (or probabilities') buffer.
layout(constant_id = 3) const bool ROUTER_SOFTMAX = false;

const float ROUTER_NO_MAX = -1.0e30;  // softmax.glsl's NO_MAX

struct RouterRow {
    uint first;  // of the token's row in router[]
    float scale, row_max, inv_sum;
};

// Every invocation of the workgroup must call it (group_max, group_sum).
RouterRow router_row(uint first, uint n, float scale) {
    RouterRow r = RouterRow(first, scale, 0.0, 1.0);
    if (!ROUTER_SOFTMAX) return r;
    float m = ROUTER_NO_MAX, s = 0.0;
    for (uint k = gl_LocalInvocationID.x; k < n; k += gl_WorkGroupSize.x) softmax_add(m, s, scale * router[first + k]);
    softmax_row(m, s, r.row_max, r.inv_sum);
    return r;
}

// Expert e's probability.
float router_prob(RouterRow r, uint e) {
    return ROUTER_SOFTMAX ? exp(r.scale * router[r.first + e] - r.row_max) * r.inv_sum : router[r.first + e];
}
