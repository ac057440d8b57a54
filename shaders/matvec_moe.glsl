// What a matvec of a mixture-of-experts block does once its rows are stored
// (graph/vulkan/kernels/moe_matvec.hpp), in the last workgroup to finish
// them (shaders/matvec_last_group.glsl), so that work that needs every row
// takes no dispatch and no level of its own:
//
//   ROUTER_TOPK  the rows are a router's logits, one counter per column
//                group: the last workgroup of a group computes each of its
//                tokens' softmax (softmax.glsl's steps), writes the
//                probabilities over the logits (the moe_weights that read
//                the softmax read them there) and the token's topk
//                (topk_rank.glsl, as topk.comp ranks) into chosen[].
//   EXPERT_SUM   the rows are the down projection of each slot (EXPERTS, a
//                batch per slot), one counter per block of rows and token:
//                the last of the token's k slots to finish that block
//                weighs its rows of every slot into summed[] (moe_sum.comp's
//                order), plus the addend (SUM_ADDEND: the residual add that
//                reads the sum). The weights: WEIGHTS_STORED, from
//                slot_w[] as moe_sum reads them; else the router's
//                probabilities in slot_w[] at the slots' expert ids, as
//                moe_weights.comp computes them (WEIGHTS_NORMALIZED: divided
//                by their sum, moe_weight_scale.glsl); or (WEIGHTS_OF_LOGITS,
//                normalized or not) from a split router's logits before the
//                norm's scale (moe_router_split.comp): the softmax of
//                scale * s * z over every expert, s = 1 / rms(h') of the
//                h' the router's norm reads (binding 4), then as above
//                (normalized: the softmax over the chosen experts alone,
//                the same weights).
//   ROUTER_PARTIALS  the rows are a MoE layer's residual h' (the o
//                projection plus its addend), which its router reads
//                through the ffn rms_norm: a router logit is linear in h',
//                logit_e = inv_rms(h') sum_j W_e[j] g[j] h'[j]. Each
//                workgroup adds its rows' share of every expert's sum, and
//                of h'^2, into partial sums (one per expert and row group,
//                after the counters); the last workgroup of a column group
//                adds them up, scales them by 1 / rms and computes each of
//                its tokens' softmax into router_out[] (binding 10) and its
//                topk into chosen[], as ROUTER_TOPK does: the router takes no
//                level of its own.
//
// Included by matvec.glsl after matvec_last_group.glsl, before its main()s,
// which call moe_epilogue() at their end from every invocation; includes
// topk_rank.glsl and moe_weight_scale.glsl.
const bool ROUTER_RANKS = EPILOGUE == ROUTER_TOPK || EPILOGUE == ROUTER_PARTIALS;
const uint WEIGHTS_STORED = 0, WEIGHTS_OF_PROBS = 1, WEIGHTS_NORMALIZED = 2, WEIGHTS_OF_LOGITS = 3,
           WEIGHTS_OF_LOGITS_NORMALIZED = 4;
layout(constant_id = 12) const uint WEIGHTS = WEIGHTS_STORED;
const bool WEIGHTS_LOGITS = WEIGHTS == WEIGHTS_OF_LOGITS || WEIGHTS == WEIGHTS_OF_LOGITS_NORMALIZED;
layout(constant_id = 13) const bool SUM_ADDEND = false;
layout(constant_id = 14) const float WEIGHT_SUM_FLOOR = 6.103515625e-5;  // kMoeWeightSumFloor
layout(constant_id = 15) const bool ROUTER_GAIN = false;  // ROUTER_PARTIALS: the norm's gain, at x2[]

// EXPERT_SUM of a split router's normalized weights, in the staged
// skeleton (matvec_staged.glsl) and for at most 8 slots a token: the first
// subgroup finds the weights while x is staged, from loads issued before the
// staging's barrier, so that the last workgroup only sums (the host sets
// it: graph/vulkan/kernels/moe_matvec.cpp).
layout(constant_id = 20) const bool EARLY_WEIGHTS = false;

// The second output: the topk's ids or the weighted sum; else y again.
layout(binding = 8, scalar) writeonly buffer Chosen { int chosen[]; };
layout(binding = 8, scalar) writeonly buffer Summed { float summed[]; };
// EXPERT_SUM: the weights or the router's probabilities (Factors' binding:
// no rope then).
layout(binding = 6, scalar) readonly buffer SlotWeights { float slot_w[]; };
// ROUTER_PARTIALS: the router's F32 weights, a row of p.n per expert
// (Pos' binding: no rope); the partial sums, after the counters; the
// probabilities (else y again).
layout(binding = 4, scalar) readonly buffer RouterWeights { float router_w[]; };
layout(binding = 9, scalar) coherent buffer Partials { float partials[]; };
layout(binding = 10, scalar) writeonly buffer RouterOut { float router_out[]; };
// EXPERT_SUM with WEIGHTS_OF_LOGITS: h', whose norm scales the logits (Pos'
// binding too).
layout(binding = 4, scalar) readonly buffer NormSource { float norm_source[]; };

// The push constants an epilogue's matvec leaves unused carry its own
// (graph/vulkan/kernels/moe_matvec.cpp sets them):
//   ROUTER_TOPK: chosen[] at ids_first, a token's ids y_nb_head apart, k of
//                them (dst_ne1); the softmax's scale in freq_scale
//   EXPERT_SUM:  summed[] at rope_firsts, a token's row rot apart; the
//                addend at a_first, a_nb1 apart; slot_w[] at a_nb2, a
//                token's a_nb3 apart; WEIGHTS_OF_LOGITS: below
//   ROUTER_PARTIALS: as ROUTER_TOPK, and the experts in x2_nb1, router_w[]
//                at rope_firsts, router_out[] at rot (a token's row
//                x2_nb1 apart), the norm's eps in eps and gain at x2_first
uint chosen_first() { return p.ids_first; }
uint chosen_nb1() { return p.y_nb_head; }
uint chosen_k() { return p.dst_ne1; }
float softmax_scale() { return p.freq_scale; }
uint summed_first() { return p.rope_firsts; }
uint summed_nb1() { return p.rot; }
uint slot_w_first() { return p.a_nb2; }
uint slot_w_nb1() { return p.a_nb3; }
// WEIGHTS_OF_LOGITS: h' at x2_nb1, a token's row y_nb_head apart, of p.n
// values; the norm's eps in eps, the softmax's scale in freq_scale, the
// router's experts in dst_ne1 (the weight's).
uint norm_source_first() { return p.x2_nb1; }
uint norm_source_nb1() { return p.y_nb_head; }

uint router_experts() { return p.x2_nb1; }
uint router_w_first() { return p.rope_firsts; }
uint router_out_first() { return p.rot; }

const uint MAX_EXPERTS = 1024;  // graph/vulkan/kernels/moe_fusion.hpp's kMaxExperts
const uint MAX_CHOSEN = 64;     // and kMaxChosen
// A token's logits, then its probabilities (ROUTER_PARTIALS: the sum of
// squares after them).
shared float router_probs[ROUTER_RANKS ? MAX_EXPERTS + 1 : 1];
shared float slot_weights[EPILOGUE == EXPERT_SUM ? MAX_CHOSEN : 1];
// Where router_topk's token's ids go in chosen[]: it sets this for
// topk_store, which topk_rank calls.
uint chosen_row;

float topk_value(uint e) { return router_probs[e]; }
void topk_store(uint rank, uint e) { chosen[chosen_row + rank] = int(e); }

#include "topk_rank.glsl"

// Logit e of a token's n: ROUTER_TOPK, at `at` of stored[] (and its
// probability written over it); ROUTER_PARTIALS, in router_probs[] in units
// of 1 / `unit` (and its probability to `at` of router_out[]).
float router_logit(uint at, uint e, float unit) {
    return EPILOGUE == ROUTER_PARTIALS ? router_probs[e] * unit : stored[at + e];
}
void store_prob(uint at, uint e, float prob) {
    if (EPILOGUE == ROUTER_PARTIALS) router_out[at + e] = prob;
    else stored[at + e] = prob;
}

// The softmax of a token's n logits, stored, and its topk.
void router_topk(uint at, uint n, uint token, float unit) {
    const float scale = softmax_scale();
    float m = -1.0e30, s = 0.0;  // softmax.glsl's NO_MAX
    for (uint e = gl_LocalInvocationID.x; e < n; e += gl_WorkGroupSize.x)
        softmax_add(m, s, scale * router_logit(at, e, unit));
    float row_max, inv_sum;
    softmax_row(m, s, row_max, inv_sum);
    for (uint e = gl_LocalInvocationID.x; e < n; e += gl_WorkGroupSize.x) {
        const float prob = exp(scale * router_logit(at, e, unit) - row_max) * inv_sum;
        router_probs[e] = prob;  // the invocation that read it
        store_prob(at, e, prob);
    }
    barrier();
    chosen_row = chosen_first() + token * chosen_nb1();
    topk_rank(n, chosen_k());
    barrier();  // router_probs free for the next token
}

// ROUTER_PARTIALS: where group g of rows keeps token t's share of expert
// e's logit (e = the experts: of its sum of squares), after the counters.
uint partial_at(uint t, uint g, uint row_groups, uint e) {
    return p.col_groups + (t * row_groups + g) * (router_experts() + 1) + e;
}

// ROUTER_PARTIALS: the workgroup's rows row0.. (group_rows of them) of its
// tokens' h', stored, into their shares: a subgroup per expert at a time,
// its invocations over the rows.
void router_partials(uint row0, uint group_rows, uint col0, uint row_groups) {
    memoryBarrierBuffer();  // this invocation's rows, before the others read them
    barrier();
    const uint experts = router_experts(), lane = gl_SubgroupInvocationID, rows = min(group_rows, p.n - row0);
    for (uint c = col0; c < col0 + COLS && c < p.m; ++c) {
        const uint y0 = y_col(c) + row0;
        for (uint e = gl_SubgroupID; e <= experts; e += gl_NumSubgroups) {
            float acc = 0.0;
            for (uint r = lane; r < rows; r += gl_SubgroupSize) {
                const float h = stored[y0 + r];
                const float gain = ROUTER_GAIN ? x2[p.x2_first + row0 + r] : 1.0;
                acc += e < experts ? router_w[router_w_first() + e * p.n + row0 + r] * gain * h : h * h;
            }
            acc = subgroupAdd(acc);
            if (subgroupElect()) partials[partial_at(c, flat_group(), row_groups, e)] = acc;
        }
    }
}

// ROUTER_PARTIALS, in the last workgroup: token t's logits from the shares
// of every group of rows (in router_probs[], the sum of squares after them),
// then its softmax and topk.
void router_from_partials(uint t, uint row_groups) {
    const uint experts = router_experts(), lane = gl_SubgroupInvocationID;
    for (uint e = gl_SubgroupID; e <= experts; e += gl_NumSubgroups) {
        float acc = 0.0;
        for (uint g = lane; g < row_groups; g += gl_SubgroupSize) acc += partials[partial_at(t, g, row_groups, e)];
        acc = subgroupAdd(acc);
        if (subgroupElect()) router_probs[e] = acc;
    }
    barrier();
    const float inv_rms = inversesqrt(router_probs[experts] / float(p.n) + p.eps);
    router_topk(router_out_first() + t * experts, experts, t, inv_rms);
}

float moe_weight(uint j) { return slot_weights[j]; }

#include "moe_weight_scale.glsl"

// WEIGHTS_OF_LOGITS: the split router's logit of token t's slot j of k.
float chosen_logit(uint t, uint k, uint j) {
    return slot_w[slot_w_first() + t * slot_w_nb1() + uint(ids[p.ids_first + t * k + j])];
}

// WEIGHTS_OF_LOGITS: this invocation's share of the sum of squares of token
// t's h'; and 1 / rms(h') from the whole sum.
float h_squares_share(uint t) {
    const uint h = norm_source_first() + t * norm_source_nb1();
    float ss = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < p.n; i += gl_WorkGroupSize.x) {
        const float v = norm_source[h + i];
        ss += v * v;
    }
    return ss;
}
float h_inv_rms(float squares) { return inversesqrt(squares / float(p.n) + p.eps); }

float early_z;  // EARLY_WEIGHTS: invocation j < k's chosen logit

// EARLY_WEIGHTS, before the staging's barrier: the first subgroup's
// invocation j < k loads slot j's logit, and each subgroup its share of h'^2
// into reduce_partials (as slot_scale's group_sum would).
void load_early_weights() {
    if (!EARLY_WEIGHTS) return;
    const uint k = p.ne2, t = batch_index() / k, j = gl_SubgroupInvocationID;
    early_z = -1.0e30;
    if (gl_SubgroupID == 0 && j < k) early_z = chosen_logit(t, k, j);
    const float ss = subgroupAdd(h_squares_share(t));
    if (subgroupElect()) reduce_partials[gl_SubgroupID] = ss;
}

// EARLY_WEIGHTS, after that barrier: the first subgroup's invocation j < k
// stores slot j's weight, as slot_scale computes it, into slot_weights[]
// (read after last_to_finish's barrier).
void store_early_weights() {
    if (!EARLY_WEIGHTS || gl_SubgroupID != 0) return;
    float total = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) total += reduce_partials[i];
    const float inv_rms = h_inv_rms(total), scale = softmax_scale();
    const float row_max = scale * (subgroupMax(early_z) * inv_rms);
    const uint j = gl_SubgroupInvocationID;
    if (j < p.ne2) slot_weights[j] = exp(scale * (early_z * inv_rms) - row_max);
}

// Token t's k slot weights (EXPERT_SUM), loaded in parallel into
// slot_weights, and the factor by which each invocation then normalizes
// them, as moe_weights.comp does (the same weights as its).
float slot_scale(uint t, uint k) {
    if (EARLY_WEIGHTS) return moe_weight_scale(k, WEIGHT_SUM_FLOOR);  // slot_weights[] stored already
    const uint w = slot_w_first() + t * slot_w_nb1();
    if (WEIGHTS_LOGITS) {
        const float inv_rms = h_inv_rms(group_sum(h_squares_share(t))), scale = softmax_scale();
        float row_max, inv_sum = 1.0;
        if (WEIGHTS == WEIGHTS_OF_LOGITS_NORMALIZED) {
            // Divided by their sum, the chosen probabilities do not depend
            // on the softmax's sum over every expert: they are the softmax
            // of the chosen logits alone. Neither sum reaches the floor:
            // this one's largest term is 1, and the k largest probabilities
            // of at most MAX_EXPERTS are at least k / MAX_EXPERTS, above it.
            float top = -1.0e30;
            for (uint j = 0; j < k; ++j) top = max(top, chosen_logit(t, k, j));
            row_max = scale * (top * inv_rms);  // the scale is positive (moe_fusion.cpp's splits)
        } else {
            float m = -1.0e30, s = 0.0;  // softmax.glsl's NO_MAX
            for (uint e = gl_LocalInvocationID.x; e < p.dst_ne1; e += gl_WorkGroupSize.x)
                softmax_add(m, s, scale * (slot_w[w + e] * inv_rms));
            softmax_row(m, s, row_max, inv_sum);
        }
        for (uint j = gl_LocalInvocationID.x; j < k; j += gl_WorkGroupSize.x) {
            const float z = chosen_logit(t, k, j);
            slot_weights[j] = exp(scale * (z * inv_rms) - row_max) * inv_sum;
        }
        barrier();
        return WEIGHTS == WEIGHTS_OF_LOGITS_NORMALIZED ? moe_weight_scale(k, WEIGHT_SUM_FLOOR) : 1.0;
    }
    for (uint j = gl_LocalInvocationID.x; j < k; j += gl_WorkGroupSize.x)
        slot_weights[j] = slot_w[w + (WEIGHTS == WEIGHTS_STORED ? j : uint(ids[p.ids_first + t * k + j]))];
    barrier();
    return WEIGHTS == WEIGHTS_NORMALIZED ? moe_weight_scale(k, WEIGHT_SUM_FLOOR) : 1.0;
}

// After the workgroup stored rows row0.. (group_rows of them) of tokens
// col0.. (ROUTER_TOPK) or of its slot (EXPERT_SUM).
void moe_epilogue(uint row0, uint group_rows, uint col0) {
    if (EPILOGUE == NO_EPILOGUE) return;
    const uint row_groups = (p.n + group_rows - 1) / group_rows;
    if (EPILOGUE == ROUTER_TOPK) {
        if (!last_to_finish(col_group(), row_groups)) return;
        for (uint c = col0; c < col0 + COLS && c < p.m; ++c) router_topk(y_col(c), p.n, c, 1.0);
    } else if (EPILOGUE == ROUTER_PARTIALS) {
        router_partials(row0, group_rows, col0, row_groups);
        if (!last_to_finish(col_group(), row_groups)) return;
        for (uint c = col0; c < col0 + COLS && c < p.m; ++c) router_from_partials(c, row_groups);
    } else if (EPILOGUE == EXPERT_SUM) {
        const uint k = p.ne2, t = batch_index() / k;  // slot j + k * t
        if (!last_to_finish(t * row_groups + flat_group(), k)) return;
        const float scale = slot_scale(t, k);
        const uint y0 = p.y_first + t * p.y_nb3;
        for (uint r = row0 + gl_LocalInvocationID.x; r < min(row0 + group_rows, p.n); r += gl_WorkGroupSize.x) {
            float sum = 0.0;
            for (uint j = 0; j < k; ++j) sum += slot_weights[j] * scale * stored[y0 + j * p.y_nb2 + r];
            if (SUM_ADDEND) sum += a[p.a_first + t * p.a_nb1 + r];
            summed[summed_first() + t * summed_nb1() + r] = sum;
        }
    }
}
