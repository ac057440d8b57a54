#include "graph/vulkan/kernels/moe_router_split.hpp"

#include <algorithm>
#include <cstdint>

#include "graph/vulkan/kernels/matvec_fusion.hpp"
#include "graph/vulkan/kernels/moe_fusion.hpp"
#include "kernels/quant/registry.hpp"

namespace tessera::vkk {

namespace {

struct Push {
    uint32_t experts, n_h, n_a, tokens, chosen;
    uint32_t k_first;
    uint32_t h_first, h_nb1;
    uint32_t a_first, a_nb1;
    uint32_t z_first, z_nb1;
    uint32_t ids_first, ids_nb1;
};

constexpr uint32_t kGroup = 256;
// Which derivation of its weights K is (VulkanBackend::derived).
constexpr uint64_t kSplitRouterForm = 1;

const uint8_t* row_of(const Tensor& t, int64_t r) { return static_cast<const uint8_t*>(t.data) + r * t.nb[1]; }

}  // namespace

std::vector<float> split_router_weights(const Tensor& router_w, const Tensor* gain, const Tensor& o_w) {
    const int64_t n_h = router_w.ne[0], experts = router_w.ne[1], n_a = o_w.ne[0], width = n_h + n_a;
    const QuantTypeEntry& type = *find_quant_type(o_w.type);
    std::vector<float> wo(size_t(n_h * n_a));
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < n_h; ++j) type.dequantize(row_of(o_w, j), wo.data() + j * n_a, n_a);
    // c[j][e] = W_r[e][j] g[j]: K's first part, and the factors of W_o's rows.
    std::vector<float> k(size_t(experts * width)), c(size_t(n_h * experts));
    const auto* g = gain ? static_cast<const float*>(gain->data) : nullptr;
    for (int64_t e = 0; e < experts; ++e) {
        const auto* r = reinterpret_cast<const float*>(row_of(router_w, e));
        for (int64_t j = 0; j < n_h; ++j) {
            const float v = g ? r[j] * g[j] : r[j];
            k[size_t(e * width + j)] = v;
            c[size_t(j * experts + e)] = v;
        }
    }
    // Blocks of kCols columns of W_o, every expert's sums of a block in cache.
    constexpr int64_t kCols = 64;
#pragma omp parallel for schedule(static)
    for (int64_t i0 = 0; i0 < n_a; i0 += kCols) {
        const int64_t cols = std::min(kCols, n_a - i0);
        std::vector<float> acc(size_t(experts * kCols), 0.0f);
        for (int64_t j = 0; j < n_h; ++j) {
            const float* w = wo.data() + j * n_a + i0;
            for (int64_t e = 0; e < experts; ++e) {
                const float f = c[size_t(j * experts + e)];
                float* s = acc.data() + e * kCols;
                for (int64_t i = 0; i < cols; ++i) s[i] += f * w[i];
            }
        }
        for (int64_t e = 0; e < experts; ++e)
            std::copy_n(acc.data() + e * kCols, cols, k.data() + e * width + n_h + i0);
    }
    return k;
}

void record_split_router(const Tensor& topk, const Tensor& router, const Tensor& norm, const Tensor& o,
                         Recorder& rec) {
    matvec_dispatch(*fused_matvec(o), rec).record(rec);
    const Tensor &router_w = *router.src[0], &o_w = *o.src[0], &a = *o.src[1], &h = *o.src[2];
    const Tensor* gain = norm.src.size() > 1 ? norm.src[1] : nullptr;
    const BoundTensor bk = rec.bind_derived(o_w, {router_w.data, gain ? gain->data : nullptr, o_w.data},
                                            kSplitRouterForm,
                                            [&] { return split_router_weights(router_w, gain, o_w); });
    const BoundTensor bh = rec.bind(h), ba = rec.bind(a), bz = rec.bind(router), bids = rec.bind(topk);
    const Push push{uint32_t(router.ne[0]),  uint32_t(h.ne[0]),       uint32_t(a.ne[0]),    uint32_t(router.ne[1]),
                    uint32_t(topk.ne[0]),    bk.first(4),             bh.first(4),          uint32_t(h.nb[1] / 4),
                    ba.first(4),             uint32_t(a.nb[1] / 4),   bz.first(4),          uint32_t(router.nb[1] / 4),
                    bids.first(4),           uint32_t(topk.nb[1] / 4)};
    rec.dispatch("moe_router_split", {kGroup}, {bk, bh, ba}, {bz, bids, rec.counters(1)}, push, push.experts);
}

}  // namespace tessera::vkk
