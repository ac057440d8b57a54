// What the matmul kernels share (matmul.cpp, matmul_id.cpp): the workgroup
// shapes, the push constants of shaders/matmul_args.glsl, which matvec
// variant runs a weight type with its specialization constants, and which
// weights the tensor-core matmul takes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/tensor.hpp"
#include "graph/vulkan/kernels/layout.hpp"
#include "graph/vulkan/recorder.hpp"
#include "graph/vulkan/vulkan_device.hpp"
#include "kernels/quant/activation_precision.hpp"

namespace tessera::vkk {

// The chunked matvec: 128 threads by 4 rows per workgroup, one chunk in
// flight per thread, the best of the shapes measured on a GPU; on a CPU
// device the workgroup is two subgroups instead
// (VulkanDevice::strided_group_size). Figures: docs/measured-choices.md#matvec-workgroup.
constexpr uint32_t kMatvecGroup = 128, kMatvecRows = 4;
// A chunked matvec of fewer than kSmallGridGroups groups of rows (a MoE
// router: 128 or 8 rows) leaves most of a large GPU idle whatever its
// workgroups' shape, so they take kSmallGridGroup threads instead, each
// thread fewer chunks in turn (docs/vulkan.md#mixture-of-experts).
constexpr uint32_t kSmallGridGroups = 64, kSmallGridGroup = 512;
// The staged variants (shaders/matvec_staged.glsl): a workgroup of
// kStagedGroup threads stages x once for all its subgroups, each of
// kStagedRows rows; larger workgroups pay for the staging, 512 by 2 the most
// (docs/measured-choices.md#staged-matvec-workgroup).
constexpr uint32_t kStagedGroup = 512, kStagedRows = 2;
// The staged variants' smallest subgroup: 8 invocations stage a block.
constexpr uint32_t kStagedMinSubgroup = 8;
// The tiled kernel's BM x BN tile, BK values per step (a multiple of 16:
// types with dequant16 take 16 values of a row at once) and TM x TN per thread.
struct Tile {
    uint32_t bm, bn, bk, tm, tn;
    uint32_t group() const { return (bm / tm) * (bn / tn); }
};
constexpr Tile kTile{64, 64, 16, 4, 4};
// A CPU device (lavapipe) pays for each invocation at each barrier
// (VulkanDevice::strided_group_size): 8 x 8 per thread and 32 values per
// step, a quarter of the invocations and half the steps
// (docs/measured-choices.md#tiled-matmul-on-a-cpu-device).
constexpr Tile kTileOnCpu{64, 64, 32, 8, 8};
// Grids of fewer than kSmallGridTiles workgroups of those tiles (a router's
// few rows: Qwen3-30B-A3B's 128 by 512 tokens are 16 workgroups) leave most
// of a large GPU idle, and each step's loads are waited for by a workgroup
// alone on its multiprocessor: 16 x 16 tiles of 64 values a step, 16 times
// the workgroups and a quarter of the steps (on an H200 the router's matmul
// went from 0.59 to 0.064 ms: docs/measured-choices.md#small-tiled-matmuls).
// A CPU device takes the same tile in 16 threads, 4 x 4 outputs each.
constexpr uint32_t kSmallGridTiles = 128;
constexpr Tile kSmallTile{16, 16, 64, 1, 1}, kSmallTileOnCpu{16, 16, 64, 4, 4};

// Two W and two x tiles of BM x BK and BN x BK fp16 values, rows padded by 8
// values (shaders/quant/matmul_coopmat.glsl).
constexpr uint32_t coop_tile_bytes(uint32_t bm, uint32_t bn, uint32_t bk) { return 2 * (bm + bn) * (bk + 8) * 2; }

// A tensor-core kernel of subgroup scope: its skeleton, its BM x BN tile and
// BK values per step; each subgroup computes frag_rows x 2 of the device's
// cooperative matrices, which must divide the tile.
struct CoopTile {
    std::string_view skeleton;
    uint32_t bm, bn, bk, frag_rows;

    uint32_t subgroups(const CoopmatShape& s) const { return (bm / (frag_rows * s.m)) * (bn / (2 * s.n)); }
    // The tiles and a CM x CN fp32 staging matrix per subgroup.
    uint32_t shared_bytes(const CoopmatShape& s) const {
        return coop_tile_bytes(bm, bn, bk) + subgroups(s) * s.m * s.n * 4;
    }
};

// Double-buffered tiles, BK 64 (x comes as an fp16 copy), subgroups of
// 32 x 32 in 64 x 64 x 64 tiles; matrices of kTallFromRows rows or more get
// subgroups of 64 x 32 in 64 x 128 x 32 tiles, which smaller ones do not fill
// a large GPU with (docs/measured-choices.md#tensor-core-tiles).
constexpr CoopTile kCoopSquare{"matmul_coopmat", 64, 64, 64, 2}, kCoopTall{"matmul_tall_coopmat", 64, 128, 32, 4};
static_assert(kTile.bk % 16 == 0 && kTileOnCpu.bk % 16 == 0 && kSmallTile.bk % 16 == 0 && kSmallTileOnCpu.bk % 16 == 0 &&
                  kCoopSquare.bk % 16 == 0 && kCoopTall.bk % 16 == 0,
              "whole runs of dequant16");
constexpr int64_t kTallFromRows = 4096;

// The tensor-core kernel of workgroup scope: the workgroup multiplies one
// BM x BK matrix of W by two BK x BN/2 ones of x, which the driver spreads
// over its subgroups; its results go out through the tiles' memory.
struct WorkgroupCoopTile {
    std::string_view skeleton;
    uint32_t bm, bn, bk;

    constexpr uint32_t tile_bytes() const { return coop_tile_bytes(bm, bn, bk); }
};
// 64 x 128 x 32 (two accumulators of 64 x 64), the fastest of the shapes
// measured; for matrices of kWorkgroupFromRows rows or more, where they were
// faster than the subgroup kernel for the weight types that build them
// (docs/vulkan.md#workgroup-scope).
constexpr WorkgroupCoopTile kCoopWorkgroup{"matmul_workgroup_coopmat", 64, 128, 32};
static_assert(kCoopWorkgroup.bm * kCoopWorkgroup.bn / 2 * 4 <= kCoopWorkgroup.tile_bytes(),
              "an accumulator's fp32 values fit in the tiles' memory");
static_assert(kCoopWorkgroup.bk % 16 == 0, "whole runs of dequant16");
constexpr int64_t kWorkgroupFromRows = 4096;

// A tensor-core matmul's dispatch: its shader, its tile's rows and tokens, and
// its specialization constants (shaders/quant/matmul_coopmat.glsl's).
struct CoopLaunch {
    std::string shader;
    uint32_t bm, bn;
    std::vector<uint32_t> spec;
};

// The tensor-core variant of subgroup scope (shaders/quant/matmul_coopmat.glsl)
// for weights w (bound as bw; of matmul, or each expert's matrix of
// matmul_id) where the device and the build have it, and where F16 rows start
// 8-byte aligned (f16.glsl loads them 4 values at once); nullopt where the
// tiled kernel runs.
std::optional<CoopLaunch> coopmat_launch(VulkanDevice& device, const Tensor& w, const BoundTensor& bw);
// The same with workgroup-scope matrices (shaders/quant/matmul_workgroup_coopmat.glsl)
// where the device has them, the build has the type's variant (the types
// whose GLSL part asks for it: codegen/shaders.cmake) and w has rows enough;
// nullopt elsewhere. Dense matmuls only: matmul_id keeps the subgroup kernel.
std::optional<CoopLaunch> workgroup_coopmat_launch(VulkanDevice& device, const Tensor& w, const BoundTensor& bw);

struct MatmulPush {  // shaders/matmul_args.glsl
    uint32_t k, n, m, ne2, col_groups;
    uint32_t w_first, w_nb1;
    RowLayout x, y;
    RowLayout a;  // the addend (matvec)
    uint32_t a_ne1 = 1, a_ne2 = 1, a_ne3 = 1;
    // What a matvec fuses (matvec_fusion.hpp).
    uint32_t x2_first = 0, x2_nb1 = 0;
    float eps = 0;
    uint32_t rope_firsts = 0;  // positions' first | frequency factors' first << 16
    float freq_scale = 0, log2_rate = 0;
    uint32_t rot = 0;  // n_rot | head_dim << 16
    uint32_t ids_first = 0, dst_ne1 = 0, y_nb_head = 0;
};

// The push constants of every variant for y = W x; `cols`: tokens per workgroup.
MatmulPush matmul_push(const Tensor& w, const Tensor& x, const BoundTensor& bw, const BoundTensor& bx, uint32_t cols);

// A matvec's shader, its specialization constants and rows per workgroup.
struct MatvecLaunch {
    std::string shader;
    std::vector<uint32_t> spec;
    uint32_t group_rows;
    bool staged = false;
    uint32_t passes = 1;  // staged: each subgroup's turns over its ROWS rows
    uint32_t staged_x = 0;  // staged: how x is held (matmul_variants.cpp's StagedX)
};

// The matvec variant (shaders/quant/matvec.glsl, matvec_staged.glsl) for
// weights of `type`, n rows by k values, and `cols` tokens, `rope` if it
// rotates row pairs; `spec` holds matvec.glsl's constants from ADDEND (3) on
// (ADDEND, PROLOGUE, ROPE_KIND, SCATTER, Y_F16): the launch fills in the
// workgroup size, ROWS and COLS, and the staged variants' constants.
MatvecLaunch matvec_launch(VulkanDevice& device, GgmlType type, ActivationPrecision precision, uint32_t n, uint32_t k,
                           uint32_t cols, bool rope, const std::vector<uint32_t>& spec);

// A staged launch of kStagedRows rows per subgroup takes `rows` instead
// (every weight type's staged unit takes any count); any other is left as it is.
void override_staged_rows(MatvecLaunch& launch, const VulkanDevice& device, uint32_t rows);
// A staged launch whose subgroups take `passes` turns over their rows: each
// workgroup stages x once for that many times the rows (any other launch is
// left as it is).
void set_staged_passes(MatvecLaunch& launch, const VulkanDevice& device, uint32_t passes);

// A staged launch for k values a token whose workgroups take `group`
// invocations instead, where the device allows that many and its shared
// memory holds their partial sums: each stages x once for more subgroups'
// rows, each invocation fewer of its pieces (any other launch is left as
// it is).
void widen_staged_group(MatvecLaunch& launch, const VulkanDevice& device, uint32_t k, uint32_t group);

// Workgroups of per_group rows each for `rows` rows.
inline uint64_t groups_of(uint32_t rows, uint32_t per_group) { return (uint64_t(rows) + per_group - 1) / per_group; }

// One matvec dispatch, as matmul.cpp and matmul_id.cpp plan it: what
// shaders/quant/matvec.glsl reads (bindings 0-6: W, x, the addend, x2,
// positions, ids, factors; a tensor it does not use is x again) and writes
// (7: y; 8, 9 and 10, a MoE epilogue's second output, counters and third
// output, shaders/matvec_moe.glsl: else y again). moe_matvec.cpp adds an
// epilogue to a planned dispatch before recording it.
struct MatvecDispatch {
    MatvecLaunch launch;
    MatmulPush push;
    std::array<BoundTensor, 7> reads;
    std::array<BoundTensor, 4> writes;
    uint64_t groups;
    uint32_t z;

    void record(Recorder& rec) const;
};

// Sets specialization constant `id` of `spec`, zeros before it where it is shorter.
void set_spec(std::vector<uint32_t>& spec, uint32_t id, uint32_t value);

// shaders/matvec_last_group.glsl's EPILOGUE: the work a matvec's last
// workgroup to finish some rows does (moe_matvec.cpp, head_norm_rope.cpp).
enum class MatvecEpilogue : uint32_t { None = 0, RouterTopk = 1, ExpertSum = 2, RouterPartials = 3, HeadNormRope = 4 };
void set_epilogue(MatvecLaunch& launch, MatvecEpilogue epilogue);

}  // namespace tessera::vkk
