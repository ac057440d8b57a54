// The per-head rms_norm that a rope rotates (Qwen3's q and k norms,
// Layer::head_norm) is computed inside that rope, and such a rope inside the
// set_rows that stores its rows into the cache (VulkanBackend::inlines), so
// that a Qwen3 layer's
//   q: rms_norm -> rope        k: rms_norm -> rope -> set_rows
// is one dispatch each (shaders/head_norm_rope.comp) instead of 2 and 3, in
// 1 level instead of 3. As with matvec_fusion.hpp, the graph, the CPU and the
// reference are unchanged, and ExecutorOptions::fuse off runs every node on
// its own.
#pragma once

#include <optional>
#include <span>

#include "graph/tensor.hpp"
#include "graph/vulkan/recorder.hpp"

namespace tessera::vkk {

bool head_norm_inlines(const Tensor& node, std::span<Tensor* const> readers);

struct HeadNormRope {
    const Tensor* norm = nullptr;   // inlined: the rope's x
    const Tensor* rope = nullptr;   // the rotation, inlined where it is stored
    const Tensor* store = nullptr;  // the set_rows storing the rope's rows, or nullptr
};

// What records `node` as one dispatch: a rope of an inlined rms_norm, or a
// set_rows of such a rope, inlined; nullopt otherwise.
std::optional<HeadNormRope> head_norm_rope(const Tensor& node);

void record_head_norm_rope(const HeadNormRope& f, Recorder& rec);

}  // namespace tessera::vkk
