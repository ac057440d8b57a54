// The nodes the Vulkan backend computes inside a matvec (VulkanBackend::
// inlines), so that for a few tokens (token generation) a Llama layer's
//   rms_norm -> q, k, v matvecs -> rope of q and k -> k and v into the cache
//   rms_norm -> gate, up matvecs -> swiglu (or geglu) -> down matvec
// is one dispatch per matvec and 5 levels instead of 10:
//   - an rms_norm (or swiglu, or geglu) read only by matvecs is computed by
//     each of them from its own loads of x (shaders/quant/matvec.glsl,
//     PROLOGUE);
//   - a matvec read only by a rope (normal mode: a pair of dims is two
//     neighbouring rows; with or without frequency factors), or by a
//     set_rows through a reshape to heads and a permute, is recorded by
//     that node with the rotation and the store applied to its rows, and so
//     is a rope read only by such a set_rows.
// Every fused node keeps its op's meaning: the graph, its scalar reference
// and the CPU are unchanged, and turning fusion off (ExecutorOptions::fuse)
// runs each node on its own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "graph/op_def.hpp"
#include "graph/tensor.hpp"
#include "graph/vulkan/kernels/kernels.hpp"
#include "graph/vulkan/kernels/matmul_variants.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

// Up to this many tokens a matmul is a matvec. A workgroup applies each
// value of W it reads to up to kMatvecCols tokens; more tokens take more
// column groups, each reading W again (on a large GPU mostly from its L2),
// which for a batch of decoding sequences beats the tiled matmul whose
// tiles they would leave mostly empty (docs/vulkan.md#batched-decoding).
constexpr int64_t kMatvecMaxTokens = 16;
constexpr uint32_t kMatvecCols = 2;

struct FusedMatvec {
    const Tensor* matmul = nullptr;  // y = W x (+ its addend)
    const Tensor* norm = nullptr;    // x is this rms_norm of x0 (inlined)
    const Tensor* glu = nullptr;     // x is this swiglu or geglu (inlined)
    const Tensor* rope = nullptr;    // the rows rotated by this rope
    const Tensor* store = nullptr;   // the rows stored by this set_rows
    int64_t head_dim = 0;            // with rope or store: rows per head

    // What the dispatch writes.
    const Tensor& out() const { return store ? *store : rope ? *rope : *matmul; }
};

bool inlines(const Tensor& node, std::span<Tensor* const> readers);

// What the fusions of this folder (this one, head_norm_rope.hpp,
// moe_fusion.hpp) ask of the nodes they match:
// whether t is a node of op,
inline bool is(const Tensor& t, const OpDef& op) { return t.op == &op; }
// whether t is a matmul the matvec kernel runs (few tokens, one batch),
bool is_matvec(const Tensor& t);
// whether v is `of` [n, tokens] seen as heads [head_dim, n / head_dim, tokens],
bool is_head_reshape(const Tensor& v, const Tensor& of);
// whether v is heads [head_dim, n_head, tokens] `of` with dims 1 and 2
// swapped: the rows set_rows sends to cache row ids[token] of each head,
bool is_head_permute(const Tensor& v, const Tensor& of);
// and whether s is a set_rows into an F32 or F16 cache of dense rows.
bool cache_store(const Tensor& s);

// The matvec that records `node`: a matmul of at most kMatvecMaxTokens
// tokens, or a rope or set_rows whose matmul is inlined; nullopt otherwise.
std::optional<FusedMatvec> fused_matvec(const Tensor& node);

// f as one dispatch (matmul.cpp), planned or recorded.
MatvecDispatch matvec_dispatch(const FusedMatvec& f, Recorder& rec);
void record_matvec(const FusedMatvec& f, Recorder& rec);
// The matmul kernel (matmul.cpp): which matmuls a matvec runs.
extern const VulkanKernel kMatmul;

}  // namespace tessera::vkk
