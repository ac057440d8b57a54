// A row's topk ranking (ops/topk.hpp: its k largest values, largest first,
// ties lower index first), shared by topk.comp and matvec_moe.glsl's
// router_topk. Each invocation of the workgroup ranks its values by counting
// those that come before them in that order (O(n^2) compares per row: meant
// for a router's experts, tens to hundreds), and a value ranked below k
// stores its index at its rank. No sort, no barrier, and every value's rank
// is distinct. The count runs over the whole row, with no exit once the rank
// reaches k: the comparisons are then independent of each other, so their
// loads overlap (a subgroup waits for its slowest invocation anyway, and
// one of the top k is in most subgroups).
//
// The includer defines how the row is read and where the indices go (its
// values may sit in shared memory, which a function cannot take):
float topk_value(uint i);             // value i of the row
void topk_store(uint rank, uint i);   // index i at rank `rank` (< k)

void topk_rank(uint n, uint k) {
    for (uint a = gl_LocalInvocationID.x; a < n; a += gl_WorkGroupSize.x) {
        const float v = topk_value(a);
        uint rank = 0;
        for (uint b = 0; b < n; ++b) {
            const float u = topk_value(b);
            rank += uint(u > v || (u == v && b < a));
        }
        if (rank < k) topk_store(rank, a);
    }
}
