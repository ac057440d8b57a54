// attention (shaders/attention.comp): workgroups of ROWS query rows of one
// kv head, an online softmax over tiles of keys held in shared memory; for
// a few tokens attention_decode.glsl (its keys split over workgroups for
// long contexts, then joined), for a prompt on a device with tensor cores
// attention_coopmat.comp. A prompt's output is written in fp16 too where a
// tensor-core matmul reads it (half_copy.hpp). Every path takes windows,
// soft-capping and ring caches (shaders/attention_span.glsl), and a batch of
// sequences in dimension 3 in one dispatch (shaders/attention_push.glsl).
#include <algorithm>
#include <bit>
#include <optional>

#include "graph/vulkan/kernels/attention_decode.hpp"
#include "graph/vulkan/kernels/half_copy.hpp"
#include "graph/vulkan/kernels/head_norm_rope.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/shader_library.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "ops/attention.hpp"

namespace tessera::vkk {

namespace {

constexpr uint32_t kGroup = 128;
// Query rows per workgroup of a prompt: each tile of keys serves them all.
// Tiles stay at 32 keys: 64 where they fit gained nothing
// (docs/measured-choices.md#prompt-attention).
constexpr uint32_t kMaxRows = 32;
// From this many cached positions on, a decode row's keys are split over
// workgroups of kDecodeChunk keys each, whose partial results a second
// dispatch joins: one workgroup per row walked a long context's chunks one
// after another.
constexpr int64_t kSplitFromKeys = 512;
constexpr uint32_t kJoinGroup = 32;  // attention_decode_join.comp's invocations: 4 values of a row each
// Shared memory grows with head_dim: at 256, 32 rows and a tile of 8 keys take 42 KiB.
constexpr int64_t kMaxHeadDim = 256;

// Invocations per key for attention_decode_lanes.comp's scores: one
// 16-byte load each, so that a subgroup's loads read whole key rows
// (attention_decode.comp's one invocation per key made each load of a
// subgroup touch 32 rows); 0 where the device, K's alignment or head_dim
// does not allow it.
uint32_t decode_key_lanes(const VulkanDeviceInfo& info, const Tensor& k, const BoundTensor& bk, uint32_t head_dim) {
    const uint32_t values = k.type == GgmlType::F16 ? 8 : 4, lanes = head_dim / values;
    const bool aligned = whole_pieces(bk, k, 16);
    const bool fits = head_dim % values == 0 && std::has_single_bit(lanes) && lanes <= info.subgroup_size &&
                      kDecodeGroup % lanes == 0;
    return info.subgroup_shuffle && aligned && fits ? lanes : 0;
}

// shaders/attention_push.glsl.
struct Push {
    uint32_t n_q, n_head, n_head_kv, n_kv;
    uint32_t q_first, q_nb1, q_nb2;
    uint32_t k_first, k_nb1, k_nb2;
    uint32_t v_first, v_nb1, v_nb2;
    uint32_t o_first, o_nb1, o_nb2;
    uint32_t pos_first;
    float scale;
    float softcap;    // 0: none
    uint32_t window;  // 0: all n_kv rows
    uint32_t n_seq;
    uint32_t q_nb3, k_nb3, v_nb3, o_nb3;  // per sequence
    // The decode shaders' query norm and rope (Q_NORM_ROPE).
    float q_eps = 0;
    uint32_t q_gain_first = 0, q_rot = 0;
    float q_log2_rate = 0, q_freq_scale = 0;
    uint32_t q_factors_first = 0;

    // The same with K's and V's firsts and strides (and the output's, with
    // `out`) counted in 4-value pieces, for shaders that load whole pieces.
    Push in_pieces(bool out) const {
        Push p = *this;
        for (uint32_t* f : {&p.k_first, &p.k_nb1, &p.k_nb2, &p.k_nb3, &p.v_first, &p.v_nb1, &p.v_nb2, &p.v_nb3}) *f /= 4;
        if (out)
            for (uint32_t* f : {&p.o_first, &p.o_nb1, &p.o_nb2, &p.o_nb3}) *f /= 4;
        return p;
    }
};

bool supports(const Tensor& out) { return out.ne[0] <= kMaxHeadDim; }

// attention_coopmat.comp: subgroups of 32 invocations, 16 query rows each.
constexpr uint32_t kCoopSubgroups = 4, kCoopRows = 16 * kCoopSubgroups, kCoopMaxHeadDim = 128;

// Shared memory of attention_coopmat.comp (its `shared` declarations), in bytes.
uint32_t coop_shared_bytes(uint32_t head_dim, uint32_t tile) {
    return 2 * tile * (head_dim + 8) * 2 + kCoopRows * (tile + 4) * 4 + kCoopRows * (tile + 8) * 2 + 3 * kCoopRows * 4;
}

// The keys per tile of attention_coopmat.comp for this head size, where the
// build, the device (16 x 16 x 16 fp16 matrices, subgroups of 32 with
// shuffles) and its shared memory allow it. Only over an F16 cache: with K
// and V already fp16 it rounds Q and P as llama.cpp does there; an F32 cache
// keeps fp32 math.
std::optional<uint32_t> coop_tile(const VulkanDevice& device, const Tensor& k, const Tensor& v) {
    const CoopmatShape& s = device.coopmat();
    const auto head_dim = uint32_t(k.ne[0]);
    if (s.m != 16 || s.n != 16 || s.k != 16 || device.info().subgroup_size != 32 || !device.info().subgroup_shuffle ||
        k.type != GgmlType::F16 || v.type != GgmlType::F16 || head_dim % 16 != 0 || head_dim > kCoopMaxHeadDim ||
        find_shader("attention_coopmat") == nullptr)
        return std::nullopt;
    for (uint32_t tile : {64u, 32u})  // the queries are staged in the tiles' memory: at least 8 keys per subgroup
        if (coop_shared_bytes(head_dim, tile) <= device.limits().maxComputeSharedMemorySize) return tile;
    return std::nullopt;
}

// Shared memory of the shader (its `shared` declarations), in bytes.
uint32_t shared_bytes(uint32_t head_dim, uint32_t rows, uint32_t tile) {
    const uint32_t vec4s = (head_dim + 3) / 4;
    return 16 * (rows * vec4s + tile * (vec4s + 1)) + 4 * (rows * tile + 5 * rows);
}

// The query rows an attention reads: q's own, or for an inlined rope of a
// head norm the rows the norm reads where the decode shader normalizes and
// rotates them itself (norm_rope.rows set), else the rope's rows computed
// into scratch memory first (head_norm_rope.hpp).
struct Query {
    BoundTensor bound;
    const Tensor* layout;  // of the rows bound
    QueryNormRope norm_rope;
};

// `prompt_rows`: where a prompt's inlined rope is computed to.
Query bind_query(const Tensor& q, bool decode, const BoundTensor& prompt_rows, Recorder& rec) {
    if (!q.inlined) return {rec.bind(q), &q, {}};
    const HeadNormRope f = *head_norm_rope(q);
    if (!decode) {
        record_head_norm_rope_into(f, prompt_rows, rec);
        return {prompt_rows, &q, {}};
    }
    QueryNormRope n = query_norm_rope(f, rec);
    return {n.bound_rows, n.rows, n};
}

// Where a prompt's inlined head norm and rope computes its query rows: in
// the recorder's one scratch region after the fp16 copy of the output
// (half_output's, at the region's start where its reader looks for it), as
// the attention dispatch reads the one while it writes the other. Taken at
// the size of both before half_output takes the first, which then leaves
// the region where it is. Unbound where q is not inlined.
BoundTensor take_query_rows(const Tensor& out, const Tensor& q, Recorder& rec) {
    if (!q.inlined) return {};
    const VkDeviceSize align = rec.binding_alignment();
    const VkDeviceSize half = (half_output_bytes(out, rec) + align - 1) / align * align;
    const VkDeviceSize rows = VkDeviceSize(q.nb[3]) * VkDeviceSize(q.ne[3]);
    const BoundTensor region = rec.scratch(half + rows);
    return {.buffer = region.buffer, .offset = region.offset + half, .range = rows};
}

// attention_decode.glsl for `rows` query rows (a workgroup each, or one per
// split of its keys with a join after), q normalized and rotated in it where
// `query` says so.
void record_decode(const Tensor& out, Push push, const Query& query, const BoundTensor& bk, const BoundTensor& bv,
                   const BoundTensor& bpos, const BoundTensor& bo, uint64_t rows, Recorder& rec) {
    const Tensor &k = *out.src[1], &v = *out.src[2];
    const uint32_t head_dim = uint32_t(out.ne[0]);
    const QueryNormRope& n = query.norm_rope;
    BoundTensor gain = query.bound, factors = query.bound;
    if (n.rows) {
        gain = n.gain;
        factors = n.factors;
        push.q_eps = n.eps;
        push.q_gain_first = gain.first(4);
        push.q_rot = n.n_rot;
        push.q_log2_rate = n.log2_rate;
        push.q_freq_scale = n.freq_scale;
        push.q_factors_first = factors.first(4);
    }
    const uint32_t lanes = decode_key_lanes(rec.device().info(), k, bk, head_dim);
    const char* shader = lanes != 0 ? "attention_decode_lanes" : "attention_decode";
    const uint32_t splits = k.ne[1] >= kSplitFromKeys ? uint32_t((k.ne[1] + kDecodeChunk - 1) / kDecodeChunk) : 1;
    const uint32_t f16 = k.type == GgmlType::F16, split_keys = splits > 1 ? kDecodeChunk : 0;
    // Values of an F16 V in 16-byte loads where its rows are so aligned.
    const uint32_t v_pieces = v.type == GgmlType::F16 && head_dim % 8 == 0 && whole_pieces(bv, v, 16) ? 2 : 1;
    const std::vector<uint32_t> spec{kDecodeGroup, head_dim, kDecodeChunk, f16, lanes, split_keys, v_pieces,
                                     // Q_NORM_ROPE and its kind
                                     uint32_t(n.rows != nullptr), uint32_t(n.neox), uint32_t(n.has_factors),
                                     uint32_t(n.has_gain)};
    if (splits == 1) {
        rec.dispatch(shader, spec, {query.bound, bk, bv, bpos, gain, factors}, {bo}, push.in_pieces(true), rows);
        return;
    }
    const BoundTensor partials = rec.scratch(rows * splits * (head_dim + 2) * sizeof(float));
    rec.dispatch(shader, spec, {query.bound, bk, bv, bpos, gain, factors}, {partials}, push.in_pieces(true), rows, splits);
    rec.dispatch("attention_decode_join", {kJoinGroup, head_dim, kDecodeChunk}, {partials}, {bo}, push.in_pieces(true), rows);
}

void record(const Tensor& out, Recorder& rec) {
    const Tensor &q = *out.src[0], &k = *out.src[1], &v = *out.src[2], &pos = *out.src[3];
    const uint32_t kv_bytes = k.type == GgmlType::F16 ? 2 : 4;
    const AttentionParams& params = out.param<AttentionParams>();
    const BoundTensor bk = rec.bind(k), bv = rec.bind(v), bpos = rec.bind(pos), bo = rec.bind(out);
    const uint32_t head_dim = uint32_t(q.ne[0]);
    // A token or a few (generation): a workgroup per query row or split of
    // its keys (attention_decode.glsl) where K, V and the output are in 4-value
    // pieces; else attention.comp, where for a prompt up to kMaxRows rows
    // share each tile of keys they load.
    const bool few_tokens = q.ne[2] <= kDecodeMaxTokens;
    const uint32_t piece = 4 * kv_bytes;
    const bool kv_pieces = whole_pieces(bk, k, piece) && whole_pieces(bv, v, piece);
    const bool decode = few_tokens && head_dim % 4 == 0 && head_dim / 4 <= kDecodeGroup && kv_pieces &&
                        whole_pieces(bo, out, 16);
    const Query query = bind_query(q, decode, decode ? BoundTensor{} : take_query_rows(out, q, rec), rec);
    const BoundTensor& bq = query.bound;
    const Push push{uint32_t(q.ne[2]),
                    uint32_t(q.ne[1]),
                    uint32_t(k.ne[2]),
                    uint32_t(k.ne[1]),
                    bq.first(4),
                    uint32_t(query.layout->nb[1] / 4),
                    uint32_t(query.layout->nb[2] / 4),
                    bk.first(kv_bytes),
                    uint32_t(k.nb[1] / kv_bytes),
                    uint32_t(k.nb[2] / kv_bytes),
                    bv.first(kv_bytes),
                    uint32_t(v.nb[1] / kv_bytes),
                    uint32_t(v.nb[2] / kv_bytes),
                    bo.first(4),
                    uint32_t(out.nb[1] / 4),
                    uint32_t(out.nb[2] / 4),
                    bpos.first(4),
                    params.scale,
                    params.softcap,
                    // A window of all the rows or more is no window (ops/attention.hpp).
                    params.window > 0 && params.window < k.ne[1] ? uint32_t(params.window) : 0,
                    uint32_t(q.ne[3]),
                    uint32_t(query.layout->nb[3] / 4),
                    uint32_t(k.nb[3] / kv_bytes),
                    uint32_t(v.nb[3] / kv_bytes),
                    uint32_t(out.nb[3] / 4)};
    const uint64_t rows_per_kv_head = uint64_t(q.ne[1] / k.ne[2]) * uint64_t(q.ne[2]);
    // Every shader numbers its workgroups sequence by sequence: a batch of
    // sequences is one dispatch.
    const uint64_t n_seq = uint64_t(q.ne[3]), kv_heads = n_seq * uint64_t(k.ne[2]);
    if (decode) return record_decode(out, push, query, bk, bv, bpos, bo, kv_heads * rows_per_kv_head, rec);
    const HalfOutput half = half_output(out, bo, rec);
    if (const auto tile = few_tokens ? std::nullopt : coop_tile(rec.device(), k, v)) {
        rec.dispatch("attention_coopmat", {32 * kCoopSubgroups, head_dim, *tile, uint32_t(kv_pieces), uint32_t(half.wanted)},
                     {bq, bk, bv, bpos}, {bo, half.binding}, kv_pieces ? push.in_pieces(false) : push,
                     kv_heads * ((rows_per_kv_head + kCoopRows - 1) / kCoopRows));
        half_output_written(out, bo, half, rec);
        return;
    }
    // Rows in blocks of 4 (those past the last compute nothing); the tile,
    // then the rows, halved to fit the device's shared memory.
    uint32_t rows = few_tokens ? 4 : uint32_t(std::min<uint64_t>(kMaxRows, (rows_per_kv_head + 3) / 4 * 4));
    uint32_t tile = few_tokens ? 128 : 32;
    while (shared_bytes(head_dim, rows, tile) > rec.device().limits().maxComputeSharedMemorySize && (tile > 8 || rows > 4)) {
        if (tile > 8)
            tile /= 2;
        else
            rows = std::max(4u, rows / 2 / 4 * 4);
    }
    // Output blocks of 8 rows where that still gives every invocation one.
    const uint32_t out_rows = rows % 8 == 0 && rows / 8 * ((head_dim + 3) / 4) >= kGroup ? 8 : 4;
    rec.dispatch("attention",
                 {kGroup, head_dim, rows, tile, uint32_t(k.type == GgmlType::F16), out_rows, uint32_t(half.wanted)},
                 {bq, bk, bv, bpos}, {bo, half.binding}, push, kv_heads * ((rows_per_kv_head + rows - 1) / rows));
    half_output_written(out, bo, half, rec);
}

const VulkanKernel kAttention{&ops::kAttention, supports, record};
[[maybe_unused]] const bool registered = register_kernel(kAttention);

}  // namespace

}  // namespace tessera::vkk
