#include "graph/vulkan/kernels/matmul_variants.hpp"

#include <algorithm>
#include <utility>

#include "graph/vulkan/kernels/weight_shaders.hpp"
#include "graph/vulkan/shader_library.hpp"

namespace tessera::vkk {

namespace {

// How a staged variant holds x (shaders/matvec_staged.glsl).
enum class StagedX { F32, Bytes, Bytes16 };

// Shared memory of a staged variant for `cols` tokens of k values and a
// workgroup of `group` (shaders/matvec_staged.glsl): per block of 32 values
// two padded halves of 16 bytes per plane of bytes (two planes with 16-bit
// x), a vec4 of its scale and sums and a float for a scale kept apart, or 8
// vec4s (F32, padded by one vec4 per 8 blocks); and a float per token and
// subgroup.
uint32_t staged_shared_bytes(StagedX x, uint32_t k, uint32_t cols, uint32_t group) {
    const uint32_t blocks = cols * k / 32, per_subgroup = cols * group / kStagedMinSubgroup * 4;
    if (x == StagedX::F32) return 8 * ((blocks + 7) / 8 * 8 + 1) * 16 + per_subgroup;
    const uint32_t planes = x == StagedX::Bytes16 ? 2 : 1;
    return planes * 2 * ((blocks + 7) / 8 * 8 + 4) * 16 + blocks * (16 + 4) + per_subgroup;
}

struct MatvecVariant {
    std::string shader;
    bool staged;
    uint32_t rows = kStagedRows;  // staged: rows per subgroup
    StagedX x = StagedX::F32;
};

// Rows per subgroup of the 16-bit staged variant: one where a row's unit
// holds a byte or more per value (Q8_0), no rope pairs rows (a pair is in
// one subgroup) and the matrix has fewer than kX16WideRows rows, else
// kStagedRows: what the measured row counts favoured; a matrix that wide
// fills the GPU with half the workgroups, each staging x for twice the rows
// (docs/measured-choices.md#rows-of-the-16-bit-staged-matvec).
constexpr uint32_t kX16WideRows = 16384;
uint32_t x16_rows(GgmlType type, bool rope, uint32_t n) {
    const GgmlTypeTraits& t = ggml_type_traits(type);
    return t.block_bytes >= t.block_elems && !rope && n < kX16WideRows ? 1 : kStagedRows;
}

// The matvec variant for weights of `type` and `cols` tokens of k values:
// with integer dot products where the type, the build and the device have
// them (8-bit activations: staged or chunked; 16-bit: staged only), else
// with F32 x; staged where the type has that variant and its shared memory
// fits, else chunked.
MatvecVariant matvec_variant(VulkanDevice& device, GgmlType type, ActivationPrecision precision, uint32_t n,
                             uint32_t k, uint32_t cols, bool rope) {
    const VulkanDeviceInfo& info = device.info();
    const bool can_stage = info.subgroup_shuffle && info.subgroup_size >= kStagedMinSubgroup &&
                           kStagedRows * cols <= kStagedMinSubgroup && k % 32 == 0;
    auto stages = [&](const std::string& shader, StagedX x) {
        return can_stage && find_shader(shader) &&
               staged_shared_bytes(x, k, cols, device.strided_group_size(kStagedGroup)) <=
                   device.limits().maxComputeSharedMemorySize;
    };
    if (precision == ActivationPrecision::Q8 && info.int_dot) {
        std::string staged = weight_shader("matvec_staged_idot", type), chunked = weight_shader("matvec_idot", type);
        if (stages(staged, StagedX::Bytes)) return {std::move(staged), true, kStagedRows, StagedX::Bytes};
        if (find_shader(chunked)) return {std::move(chunked), false};
    }
    if (precision == ActivationPrecision::Q16 && info.int_dot) {
        std::string staged = weight_shader("matvec_staged_idot16", type);
        if (stages(staged, StagedX::Bytes16))
            return {std::move(staged), true, x16_rows(type, rope, n), StagedX::Bytes16};
    }
    std::string staged = weight_shader("matvec_staged", type);
    if (stages(staged, StagedX::F32)) return {std::move(staged), true};
    return {weight_shader("matvec", type), false};
}

// HALF_UNITS of a staged launch (kernels/quant/types/staged_x.glsl): rows of
// kHalfUnitsFromValues values or more take a type's units of half blocks where
// it has the choice (Q4_K): fewer registers, each invocation taking twice the
// units in turn, which paid on rows of 4096 values and more and not on
// shorter ones (docs/measured-choices.md#half-units-of-q4_k). A type without
// the choice ignores the constant.
constexpr uint32_t kHalfUnitsConstant = 19, kHalfUnitsFromValues = 4096;

// A staged matrix of at least kPassRows rows (a vocabulary's output
// projection) gives each workgroup kWidePasses times the rows, which its
// subgroups take in turn (matvec_staged.glsl's loop over GROUP_ROWS): x is
// staged, and normed, once for 4 times the rows, and the matrix still gives
// hundreds of workgroups (docs/measured-choices.md#passes-over-wide-matrices).
constexpr uint32_t kPassRows = 65536, kWidePasses = 4;

// ROWS (1) and GROUP_ROWS (9) of a staged launch: rows per subgroup, and so
// (times its passes) per workgroup.
void set_staged_rows(MatvecLaunch& launch, const VulkanDevice& device, uint32_t rows) {
    launch.spec[1] = rows;
    launch.group_rows = launch.passes * rows * std::max(launch.spec[0] / device.info().subgroup_size, 1u);
    launch.spec[9] = launch.group_rows;
}

}  // namespace

std::optional<CoopLaunch> coopmat_launch(VulkanDevice& device, const Tensor& w, const BoundTensor& bw) {
    const CoopmatShape& s = device.coopmat();
    const CoopTile& t = w.ne[1] >= kTallFromRows ? kCoopTall : kCoopSquare;
    std::string name = weight_shader(t.skeleton, w.type);
    if (!s || t.bm % (t.frag_rows * s.m) != 0 || t.bn % (2 * s.n) != 0 || t.bk % s.k != 0 || !find_shader(name) ||
        t.shared_bytes(s) > device.limits().maxComputeSharedMemorySize ||
        (w.type == GgmlType::F16 && !whole_pieces(bw, w, 8)))
        return std::nullopt;
    return CoopLaunch{std::move(name), t.bm, t.bn,
                      {t.subgroups(s) * device.info().subgroup_size, t.bm, t.bn, t.bk, s.m, s.n, s.k}};
}

std::optional<CoopLaunch> workgroup_coopmat_launch(VulkanDevice& device, const Tensor& w, const BoundTensor& bw) {
    const WorkgroupCoopmat& g = device.workgroup_coopmat();
    const WorkgroupCoopTile& t = kCoopWorkgroup;
    std::string name = weight_shader(t.skeleton, w.type);
    if (!g || w.ne[1] < kWorkgroupFromRows || t.bm % g.m != 0 || t.bn / 2 % g.n != 0 || t.bk % g.k != 0 ||
        !find_shader(name) || t.tile_bytes() + g.reserved_shared > device.limits().maxComputeSharedMemorySize ||
        (w.type == GgmlType::F16 && !whole_pieces(bw, w, 8)))
        return std::nullopt;
    // 4-6, the subgroup matrices' shape, are unused here (the device's, as
    // the subgroup kernels get them); 7: EXPERTS; 8: HALF_BN.
    const CoopmatShape& s = device.coopmat();
    return CoopLaunch{std::move(name), t.bm, t.bn, {g.invocations, t.bm, t.bn, t.bk, s.m, s.n, s.k, 0, t.bn / 2}};
}

MatmulPush matmul_push(const Tensor& w, const Tensor& x, const BoundTensor& bw, const BoundTensor& bx,
                       uint32_t cols) {
    const uint32_t block = ggml_type_traits(w.type).block_bytes, m = uint32_t(x.ne[1]);
    return {.k = uint32_t(w.ne[0]),
            .n = uint32_t(w.ne[1]),
            .m = m,
            .ne2 = uint32_t(x.ne[2]),
            .col_groups = (m + cols - 1) / cols,
            .w_first = bw.first(block),
            .w_nb1 = uint32_t(w.nb[1] / block),
            .x = row_layout(x, bx, 4)};
}

MatvecLaunch matvec_launch(VulkanDevice& device, GgmlType type, ActivationPrecision precision, uint32_t n, uint32_t k,
                           uint32_t cols, bool rope, const std::vector<uint32_t>& spec) {
    const MatvecVariant variant = matvec_variant(device, type, precision, n, k, cols, rope);
    MatvecLaunch launch{variant.shader, {0, kMatvecRows, cols}, kMatvecRows};
    launch.spec.insert(launch.spec.end(), spec.begin(), spec.end());
    if (variant.staged) {
        launch.staged = true;
        launch.staged_x = uint32_t(variant.x);
        launch.spec[0] = device.strided_group_size(kStagedGroup);
        launch.spec.resize(8, 0);
        launch.spec.insert(launch.spec.end(), {k / 32 * cols, 0});
        if (k >= kHalfUnitsFromValues) set_spec(launch.spec, kHalfUnitsConstant, 1);
        launch.passes = n >= kPassRows ? kWidePasses : 1;
        set_staged_rows(launch, device, variant.rows);
    } else {
        // At least a thread per row and token: each stores one.
        const uint32_t group = groups_of(n, kMatvecRows) < kSmallGridGroups ? kSmallGridGroup : kMatvecGroup;
        launch.spec[0] = std::max(device.strided_group_size(group), kMatvecRows * cols);
    }
    return launch;
}

void override_staged_rows(MatvecLaunch& launch, const VulkanDevice& device, uint32_t rows) {
    if (launch.staged && launch.spec[1] == kStagedRows) set_staged_rows(launch, device, rows);
}

void widen_staged_group(MatvecLaunch& launch, const VulkanDevice& device, uint32_t k, uint32_t group) {
    if (!launch.staged) return;
    group = device.strided_group_size(group);
    const VkPhysicalDeviceLimits& limits = device.limits();
    // The epilogues' reductions (shaders/reduce.glsl) take a float per invocation beside the staged x.
    const uint32_t shared = staged_shared_bytes(StagedX(launch.staged_x), k, launch.spec[2], group) + 4 * group;
    if (group <= launch.spec[0] || group > limits.maxComputeWorkGroupInvocations ||
        group > limits.maxComputeWorkGroupSize[0] || shared > limits.maxComputeSharedMemorySize)
        return;
    launch.spec[0] = group;
    set_staged_rows(launch, device, launch.spec[1]);
}

void set_staged_passes(MatvecLaunch& launch, const VulkanDevice& device, uint32_t passes) {
    if (!launch.staged) return;
    launch.passes = passes;
    set_staged_rows(launch, device, launch.spec[1]);
}

void MatvecDispatch::record(Recorder& rec) const {
    const auto& r = reads;
    rec.dispatch(launch.shader, launch.spec, {r[0], r[1], r[2], r[3], r[4], r[5], r[6]},
                 {writes[0], writes[1], writes[2], writes[3]}, push, groups, z);
}

void set_spec(std::vector<uint32_t>& spec, uint32_t id, uint32_t value) {
    if (spec.size() <= id) spec.resize(id + 1, 0);
    spec[id] = value;
}

void set_epilogue(MatvecLaunch& launch, MatvecEpilogue epilogue) {
    constexpr uint32_t kEpilogueConstant = 11;
    set_spec(launch.spec, kEpilogueConstant, uint32_t(epilogue));
}

}  // namespace tessera::vkk
