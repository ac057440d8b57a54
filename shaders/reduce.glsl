// Workgroup-wide sum and max (included after common.glsl): a subgroup
// reduction, then one partial per subgroup through shared memory; and a
// softmax row's statistics from them. Every invocation of the workgroup must
// call group_sum, group_max and softmax_row (they hold barriers).
layout(constant_id = 0) const uint REDUCE_GROUP_SIZE = 256;  // the workgroup size (common.glsl)

// At most one subgroup per invocation; an includer that reduces only in
// some of its specializations may define fewer.
#ifndef REDUCE_PARTIALS
#define REDUCE_PARTIALS REDUCE_GROUP_SIZE
#endif
shared float reduce_partials[REDUCE_PARTIALS];

float group_sum(float v) {
    v = subgroupAdd(v);
    if (subgroupElect()) reduce_partials[gl_SubgroupID] = v;
    barrier();
    float total = 0.0;
    for (uint i = 0; i < gl_NumSubgroups; ++i) total += reduce_partials[i];
    barrier();  // the partials are free for the next call
    return total;
}

float group_max(float v) {
    v = subgroupMax(v);
    if (subgroupElect()) reduce_partials[gl_SubgroupID] = v;
    barrier();
    float m = reduce_partials[0];
    for (uint i = 1; i < gl_NumSubgroups; ++i) m = max(m, reduce_partials[i]);
    barrier();
    return m;
}

// A softmax's row statistics, the online way: each invocation keeps the
// largest value m of its share of the row and the sum s of exp(v - m) over
// it (start with m below every value and s = 0; softmax_add per value), then
// softmax_row gives the row's max and 1 / its sum of exp(v - max) (every
// invocation of the workgroup must call it).
void softmax_add(inout float m, inout float s, float v) {
    if (v > m) {
        s = s * exp(m - v) + 1.0;
        m = v;
    } else {
        s += exp(v - m);
    }
}

void softmax_row(float m, float s, out float row_max, out float inv_sum) {
    row_max = group_max(m);
    inv_sum = 1.0 / group_sum(s * exp(m - row_max));
}
