// rope (shaders/rope.comp): one invocation per pair of dims of a head.
#include "graph/vulkan/kernels/head_norm_rope.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/rope_args.hpp"
#include "graph/vulkan/recorder.hpp"
#include "ops/rope.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 256;

struct Push {
    uint32_t head_dim, n_head, n_rot, pairs, total;
    uint32_t x_first, x_nb1, x_nb2;
    uint32_t y_first, y_nb1, y_nb2;
    uint32_t pos_first, factors_first;
    float freq_scale, log2_rate, attn_factor;
};

bool supports(const Tensor&) { return true; }  // every rope: F32 [head_dim, n_head, n_tokens]

void record(const Tensor& y, Recorder& rec) {
    if (const auto f = fused_matvec(y)) return record_matvec(*f, rec);  // of an inlined matmul
    if (const auto f = head_norm_rope(y)) return record_head_norm_rope(*f, rec);  // of an inlined rms_norm
    const Tensor &x = *y.src[0], &pos = *y.src[1];
    const RopeParams& rp = y.param<RopeParams>();
    const Tensor* factors = rope_freq_factors(y);
    const BoundTensor bx = rec.bind(x), bpos = rec.bind(pos), by = rec.bind(y);
    const BoundTensor bfactors = factors ? rec.bind(*factors) : bx;
    const uint32_t pairs = uint32_t(y.ne[0] + 1) / 2;
    const uint64_t total = uint64_t(pairs) * uint64_t(y.ne[1] * y.ne[2]);
    const Push push{uint32_t(y.ne[0]),
                    uint32_t(y.ne[1]),
                    uint32_t(rp.n_rot),
                    pairs,
                    uint32_t(total),
                    bx.first(4),
                    uint32_t(x.nb[1] / 4),
                    uint32_t(x.nb[2] / 4),
                    by.first(4),
                    uint32_t(y.nb[1] / 4),
                    uint32_t(y.nb[2] / 4),
                    bpos.first(4),
                    bfactors.first(4),
                    rp.freq_scale,
                    rope_log2_rate(rp),
                    rp.attn_factor};
    rec.dispatch("rope", {kGroup, uint32_t(rp.mode == RopeMode::Neox), uint32_t(factors != nullptr)},
                 {bx, bpos, bfactors}, {by}, push, (total + kGroup - 1) / kGroup);
}

const VulkanKernel kRope{&ops::kRope, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kRope);

}  // namespace

}  // namespace tessera::vkk
