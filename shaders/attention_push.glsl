// The push constants every attention shader shares (attention.comp,
// attention_coopmat.comp, attention_decode.glsl and its join), and where
// one sequence of a batch starts (ops/attention.hpp: dimension 3 holds
// independent sequences, each with its own queries, rows and positions).
// graph/vulkan/kernels/attention.cpp fills them; the decode shaders count
// K, V and O in 4-value pieces (it divides their firsts and strides).
layout(push_constant) uniform Push {
    uint n_q, n_head, n_head_kv, n_kv;
    uint q_first, q_nb1, q_nb2;  // strides: per head, per token
    uint k_first, k_nb1, k_nb2;  // per position, per kv head
    uint v_first, v_nb1, v_nb2;
    uint o_first, o_nb1, o_nb2;
    uint pos_first;
    float scale;
    float softcap;  // 0: none
    uint window;    // 0: all n_kv rows
    uint n_seq;
    uint q_nb3, k_nb3, v_nb3, o_nb3;  // per sequence (positions: n_q per sequence)
    // The decode shaders' query norm and rope (attention_decode.glsl's
    // Q_NORM_ROPE): the norm's eps and where its gain starts; the rope's
    // rotated dims, rate (rope.glsl's log2_rate), frequency scale and where
    // its frequency factors start.
    float q_eps;
    uint q_gain_first, q_rot;
    float q_log2_rate, q_freq_scale;
    uint q_factors_first;
} p;

// The first elements of one sequence's tensors.
struct SeqFirsts {
    uint q, k, v, o, pos;
};

SeqFirsts seq_firsts(uint seq) {
    return SeqFirsts(p.q_first + seq * p.q_nb3, p.k_first + seq * p.k_nb3, p.v_first + seq * p.v_nb3,
                     p.o_first + seq * p.o_nb3, p.pos_first + seq * p.n_q);
}
