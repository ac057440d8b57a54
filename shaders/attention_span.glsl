// What every attention shader shares about which keys a query sees and how
// its scores are capped (ops/attention.hpp): the cache's n_kv rows hold the
// last n_kv positions, position j at row j mod n_kv (a ring for a
// sliding-window layer's cache; for a full cache j < n_kv and the row is j).
#include "tanh.glsl"

// The positions [begin, end) the query at position pos sees: the last
// w = min(window, n_kv) up to pos (window 0: n_kv); none for pos < 0.
uvec2 attention_span(int pos, uint n_kv, uint window) {
    if (pos < 0) return uvec2(0);
    const uint w = window > 0 && window < n_kv ? window : n_kv, end = uint(pos) + 1;
    return uvec2(end > w ? end - w : 0, end);
}

// The cache row of the span's key t (t < n_kv), first_row = begin mod n_kv:
// one wrap at most, so no division per key.
uint ring_row(uint first_row, uint t, uint n_kv) {
    const uint r = first_row + t;
    return r >= n_kv ? r - n_kv : r;
}

// A score soft-capped to (-softcap, softcap); softcap 0: as it is.
float capped_score(float s, float softcap) { return softcap > 0.0 ? soft_cap(s, softcap) : s; }
