// attention: cpu::attention for each sequence, flash-attention style (docs/cpu-attention.md).
#include "graph/cpu/cpu_kernel.hpp"
#include "kernels/cpu/attention.hpp"
#include "ops/attention.hpp"

namespace tessera::cpuk {

namespace {

// The arguments of sequence b (dimension 3).
cpu::AttentionArgs args(const Tensor& out, int64_t b = 0) {
    const Tensor& q = *out.src[0];
    const Tensor& k = *out.src[1];
    const Tensor& v = *out.src[2];
    const Tensor& pos = *out.src[3];
    return {.q = reinterpret_cast<const float*>(q.row(0, 0, b)),
            .q_token_stride = q.nb[2],
            .q_head_stride = q.nb[1],
            .n_q = q.ne[2],
            .n_head = q.ne[1],
            .head_dim = q.ne[0],
            .k = k.row(0, 0, b),
            .k_pos_stride = k.nb[1],
            .k_head_stride = k.nb[2],
            .v = v.row(0, 0, b),
            .v_pos_stride = v.nb[1],
            .v_head_stride = v.nb[2],
            .kv_type = k.type,
            .n_kv = k.ne[1],
            .n_head_kv = k.ne[2],
            .q_pos = reinterpret_cast<const int32_t*>(pos.row(b)),
            .window = out.param<AttentionParams>().window,
            .scale = out.param<AttentionParams>().scale,
            .softcap = out.param<AttentionParams>().softcap,
            .out = reinterpret_cast<float*>(out.row(0, 0, b)),
            .out_token_stride = out.nb[2],
            .out_head_stride = out.nb[1]};
}

// One call per sequence; every thread takes part in each.
void run(const Tensor& out, const CpuContext& ctx) {
    for (int64_t b = 0; b < out.ne[3]; ++b) {
        if (b > 0) ctx.team.barrier();  // the work buffer is reused
        cpu::attention(args(out, b), ctx.work, ctx.team);
    }
}

size_t work_bytes(const Tensor& out, int n_threads) { return cpu::attention_work_bytes(args(out), n_threads); }

const CpuKernel kAttention{.op = &ops::kAttention, .run = run, .work_bytes = work_bytes};
[[maybe_unused]] const bool registered = register_kernel(kAttention);

}  // namespace

}  // namespace tessera::cpuk
