// Workgroup-wide sum and max (included after common.glsl): a subgroup
// reduction, then one partial per subgroup through shared memory. Every
// invocation of the workgroup must call them (they hold barriers).
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
