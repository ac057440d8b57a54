#include "graph/vulkan/kernels/moe_router_split.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

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

// W_o's columns in chunks of kLanes and the experts in groups of kExperts: a
// chunk's sums for a group stay in registers over W_o's rows.
constexpr int64_t kLanes = 16, kExperts = 16;
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));  // GCC's vectors: one chunk

// m[e][i] = sum over rows j of c[j][e] W_o[j][i] for every expert and
// column of the padding (m's rows a_pad apart), W_o in panels of kLanes
// columns (panel p's row j at (p * n_h + j) * kLanes). Cloned for AVX-512
// and AVX2 (a portable build's default is SSE2, ten times slower here);
// consecutive iterations of a thread share a chunk of columns, which stays
// in its cache for every group of experts.
__attribute__((target_clones("avx512f", "avx2,fma", "default"))) void panel_products(
    const float* panels, const float* c, int64_t n_h, int64_t a_pad, int64_t e_pad, float* m) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t i0 = 0; i0 < a_pad; i0 += kLanes)
        for (int64_t e0 = 0; e0 < e_pad; e0 += kExperts) {
            Lanes acc[kExperts] = {};
            for (int64_t j = 0; j < n_h; ++j) {
                Lanes w;
                std::memcpy(&w, panels + (i0 / kLanes * n_h + j) * kLanes, sizeof w);
                const float* f = c + j * e_pad + e0;
                for (int64_t e = 0; e < kExperts; ++e) acc[e] += f[e] * w;
            }
            for (int64_t e = 0; e < kExperts; ++e) std::memcpy(m + (e0 + e) * a_pad + i0, &acc[e], sizeof(Lanes));
        }
}

}  // namespace

std::vector<float> split_router_weights(const Tensor& router_w, const Tensor* gain, const Tensor& o_w) {
    // Columns padded with zeros to whole chunks, experts to whole groups.
    const int64_t n_h = router_w.ne[0], experts = router_w.ne[1], n_a = o_w.ne[0], width = n_h + n_a;
    const int64_t a_pad = (n_a + kLanes - 1) / kLanes * kLanes, e_pad = (experts + kExperts - 1) / kExperts * kExperts;
    const QuantTypeEntry& type = *find_quant_type(o_w.type);
    // W_o dequantized into panels of kLanes columns, each over every row
    // (panel p's row j at (p * n_h + j) * kLanes), so that a chunk's loop
    // reads consecutive bytes.
    std::vector<float> panels(size_t(n_h * a_pad), 0.0f);
#pragma omp parallel
    {
        std::vector<float> row(size_t(a_pad), 0.0f);
#pragma omp for schedule(static)
        for (int64_t j = 0; j < n_h; ++j) {
            type.dequantize(row_of(o_w, j), row.data(), n_a);
            for (int64_t p = 0; p < a_pad / kLanes; ++p)
                std::copy_n(row.data() + p * kLanes, kLanes, panels.data() + (p * n_h + j) * kLanes);
        }
    }
    // c[j][e] = W_r[e][j] g[j]: K's first part, and the factors of W_o's rows.
    std::vector<float> k(size_t(experts * width)), c(size_t(n_h * e_pad), 0.0f);
    const auto* g = gain ? static_cast<const float*>(gain->data) : nullptr;
    for (int64_t e = 0; e < experts; ++e) {
        const auto* r = reinterpret_cast<const float*>(row_of(router_w, e));
        for (int64_t j = 0; j < n_h; ++j) {
            const float v = g ? r[j] * g[j] : r[j];
            k[size_t(e * width + j)] = v;
            c[size_t(j * e_pad + e)] = v;
        }
    }
    std::vector<float> m(size_t(e_pad * a_pad));
    panel_products(panels.data(), c.data(), n_h, a_pad, e_pad, m.data());
    for (int64_t e = 0; e < experts; ++e) std::copy_n(m.data() + e * a_pad, n_a, k.data() + e * width + n_h);
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
