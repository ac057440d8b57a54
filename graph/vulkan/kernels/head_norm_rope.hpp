// The per-head rms_norm that a rope rotates (Qwen3's and Gemma 3's q and k
// norms, Layer::head_norm) is computed by the kernels that read it
// (VulkanBackend::inlines), so that it takes no dispatch and, for a few
// tokens, no level of its own:
//   - a rope of such a norm is one dispatch (shaders/head_norm_rope.comp,
//     a workgroup per head), and so is a set_rows of such a rope into the
//     cache: a layer's
//       q: rms_norm -> rope        k: rms_norm -> rope -> set_rows
//     is one dispatch each instead of 2 and 3, in 1 level instead of 3;
//   - for a few tokens, q's rope read only by the decode attention is
//     computed by it: it normalizes and rotates its query row as it stages
//     it (shaders/attention_decode.glsl's Q_NORM_ROPE);
//   - and k's matvec, read only by such a norm whose rope the set_rows
//     stores, is recorded by that set_rows (Backend::computed_later): the
//     last workgroup of each head's rows normalizes, rotates and stores them
//     (shaders/matvec_head_norm.glsl). q, k and v are then the matvecs of
//     one level and attention the next.
// As with matvec_fusion.hpp, the graph, the CPU and the reference are
// unchanged, and ExecutorOptions::fuse off runs every node on its own.
#pragma once

#include <optional>
#include <span>

#include "graph/backend.hpp"
#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

bool head_norm_inlines(const Tensor& node, std::span<Tensor* const> readers);
// Backend::computed_later: k's matvec, which the set_rows storing its
// normalized, rotated heads records.
bool head_norm_computed_later(const Tensor& node, std::span<Tensor* const> readers,
                              const Backend::ReadersOf& readers_of);

struct HeadNormRope {
    const Tensor* norm = nullptr;   // inlined: the rope's x
    const Tensor* rope = nullptr;   // the rotation, inlined where it is stored or attended
    const Tensor* store = nullptr;  // the set_rows storing the rope's rows, or nullptr
};

// What records `node` as one dispatch: a rope of an inlined rms_norm, or a
// set_rows of such a rope, inlined; nullopt otherwise.
std::optional<HeadNormRope> head_norm_rope(const Tensor& node);

// f as one dispatch: head_norm_rope.comp, or for a store of a matvec's rows
// that matvec (head_norm_computed_later).
void record_head_norm_rope(const HeadNormRope& f, Recorder& rec);
// f's rope rows (no store) computed by head_norm_rope.comp into `rows`,
// working memory the caller took (f.rope->nb[3] * ne[3] bytes), laid out as
// the rope node, for an attention that reads the inlined rope without
// normalizing it itself.
void record_head_norm_rope_into(const HeadNormRope& f, const BoundTensor& rows, Recorder& rec);

// What a decode attention needs to normalize and rotate its query rows, an
// inlined rope f of an inlined norm (shaders/attention_decode.glsl's
// Q_NORM_ROPE): the rows the norm reads, its gain and the rope's factors
// (each the rows again where absent), and the parameters; rows nullptr in
// one made empty.
struct QueryNormRope {
    const Tensor* rows = nullptr;
    BoundTensor bound_rows, gain, factors;
    bool has_gain = false, has_factors = false, neox = false;
    float eps = 0, log2_rate = 0, freq_scale = 0;
    uint32_t n_rot = 0;
};
QueryNormRope query_norm_rope(const HeadNormRope& f, Recorder& rec);

}  // namespace tessera::vkk
