#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "codegen/spirv_coopmat_khr.hpp"
#include "graph/vulkan/shader_library.hpp"

namespace tessera {
namespace {

using codegen::rewrite_coopmat_khr;
using codegen::SpirvRewriteError;
using Words = std::vector<uint32_t>;

// A small module as glslang writes one with GL_NV_cooperative_matrix: ids
// are fixed so that the test can name them.
struct NvModule {
    enum : uint32_t {
        kUint = 1, kFloat = 2, kHalf = 3, kScope = 4, kRows = 5, kCols = 6, kTrue = 7, kFalse = 8,
        kTypeA = 9, kTypeB = 10, kTypeC = 11, kPtr = 12, kStride = 13,
        kA = 20, kB = 21, kC = 22, kD = 23, kBound = 30,
    };
    Words words{0x07230203, 0x00010600, 0, kBound, 0};

    void add(uint32_t op, Words operands) {
        words.push_back((uint32_t(operands.size() + 1) << 16) | op);
        words.insert(words.end(), operands.begin(), operands.end());
    }
    static Words string(const std::string& s) {
        Words w(s.size() / 4 + 1, 0);
        for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
        return w;
    }
    // scope: 2 workgroup, 3 subgroup; a_component: kHalf, or kUint for an integer multiply.
    explicit NvModule(uint32_t scope = 2, uint32_t a_component = kHalf, bool b_as_a = false) {
        add(17, {5357});                                   // OpCapability CooperativeMatrixNV
        add(10, string("SPV_NV_cooperative_matrix"));      // OpExtension
        add(21, {kUint, 32, 0});                           // OpTypeInt
        add(22, {kFloat, 32});                             // OpTypeFloat
        add(22, {kHalf, 16});
        add(43, {kUint, kScope, scope});                   // OpConstant
        add(43, {kUint, kRows, 64});
        add(43, {kUint, kCols, 32});
        add(41, {0, kTrue});                               // OpConstantTrue (its type: unused here)
        add(42, {0, kFalse});
        add(5358, {kTypeA, a_component, kScope, kRows, kCols});  // OpTypeCooperativeMatrixNV
        add(5358, {kTypeB, kHalf, kScope, kCols, kRows});
        add(5358, {kTypeC, kFloat, kScope, kRows, kRows});
        add(5359, {kTypeA, kA, kPtr, kStride, kFalse});         // OpCooperativeMatrixLoadNV, row-major
        add(5359, {kTypeB, kB, kPtr, kStride, kTrue, 0});       // column-major, MemoryAccess None
        add(5359, {kTypeC, kC, kPtr, kStride, kTrue});
        add(5361, {kTypeC, kD, kA, b_as_a ? kA : kB, kC});      // OpCooperativeMatrixMulAddNV
        add(5360, {kPtr, kD, kStride, kTrue, 0});               // OpCooperativeMatrixStoreNV
    }
};

// The module's instructions by opcode, each with its operands.
std::multimap<uint32_t, Words> instructions(const Words& m) {
    std::multimap<uint32_t, Words> out;
    for (size_t i = 5; i < m.size();) {
        const uint32_t n = m[i] >> 16;
        out.emplace(m[i] & 0xFFFF, Words(m.begin() + long(i) + 1, m.begin() + long(i + n)));
        i += n;
    }
    return out;
}

std::string string_operand(const Words& w) {
    std::string s;
    for (uint32_t word : w)
        for (int b = 0; b < 4 && ((word >> (8 * b)) & 0xFF) != 0; ++b) s += char((word >> (8 * b)) & 0xFF);
    return s;
}

TEST(SpirvCoopmatKhr, RewritesTypesLoadsStoresAndMultiplies) {
    const NvModule nv;
    const Words khr = rewrite_coopmat_khr(nv.words);
    const auto ins = instructions(khr);
    EXPECT_EQ(khr[3], NvModule::kBound + 3) << "three new constants";
    for (uint32_t op : {5357u, 5358u, 5359u, 5360u, 5361u, 5362u})
        for (const auto& [o, operands] : ins) EXPECT_NE(o == 17 ? operands[0] : o, op) << "an NV opcode or capability is left";

    // The constants 0, 1 and 2 the rewrite added, by value.
    std::map<uint32_t, uint32_t> value_of;
    for (auto [it, end] = ins.equal_range(43); it != end; ++it)
        if (it->second[1] >= NvModule::kBound) value_of[it->second[1]] = it->second[2];
    ASSERT_EQ(value_of.size(), 3u);

    std::map<uint32_t, uint32_t> use;  // type -> Use value
    for (auto [it, end] = ins.equal_range(4456); it != end; ++it) {
        ASSERT_EQ(it->second.size(), 6u);
        use[it->second[0]] = value_of.at(it->second[5]);
    }
    EXPECT_EQ(use.at(NvModule::kTypeA), 0u);  // MatrixA
    EXPECT_EQ(use.at(NvModule::kTypeB), 1u);  // MatrixB
    EXPECT_EQ(use.at(NvModule::kTypeC), 2u);  // MatrixAccumulator

    // Loads: type, result, pointer, MemoryLayout (0 row-, 1 column-major), stride[, access].
    std::map<uint32_t, Words> loads;
    for (auto [it, end] = ins.equal_range(4457); it != end; ++it) loads[it->second[1]] = it->second;
    ASSERT_EQ(loads.size(), 3u);
    EXPECT_EQ(value_of.at(loads.at(NvModule::kA)[3]), 0u);
    EXPECT_EQ(loads.at(NvModule::kA)[4], uint32_t(NvModule::kStride));
    EXPECT_EQ(loads.at(NvModule::kA).size(), 5u);
    EXPECT_EQ(value_of.at(loads.at(NvModule::kB)[3]), 1u);
    EXPECT_EQ(loads.at(NvModule::kB).size(), 6u) << "the memory access operand is kept";

    // Store: pointer, object, MemoryLayout, stride, access.
    const auto store = ins.find(4458);
    ASSERT_NE(store, ins.end());
    EXPECT_EQ(store->second, (Words{NvModule::kPtr, NvModule::kD, store->second[2], NvModule::kStride, 0}));
    EXPECT_EQ(value_of.at(store->second[2]), 1u);

    const auto mul = ins.find(4459);
    ASSERT_NE(mul, ins.end());
    EXPECT_EQ(mul->second, (Words{NvModule::kTypeC, NvModule::kD, NvModule::kA, NvModule::kB, NvModule::kC}));

    std::vector<std::string> extensions;
    for (auto [it, end] = ins.equal_range(10); it != end; ++it) extensions.push_back(string_operand(it->second));
    EXPECT_EQ(extensions, (std::vector<std::string>{"SPV_KHR_cooperative_matrix", "SPV_NV_cooperative_matrix2"}));
    EXPECT_EQ(ins.find(17)->second, Words{6022});
}

TEST(SpirvCoopmatKhr, SubgroupScopeNeedsNoCooperativeMatrix2) {
    const auto ins = instructions(rewrite_coopmat_khr(NvModule(3).words));
    std::vector<std::string> extensions;
    for (auto [it, end] = ins.equal_range(10); it != end; ++it) extensions.push_back(string_operand(it->second));
    EXPECT_EQ(extensions, std::vector<std::string>{"SPV_KHR_cooperative_matrix"});
}

TEST(SpirvCoopmatKhr, RefusesWhatItCannotRewrite) {
    EXPECT_THROW(rewrite_coopmat_khr(Words{1, 2, 3}), SpirvRewriteError);
    EXPECT_THROW(rewrite_coopmat_khr(NvModule(2, NvModule::kUint).words), SpirvRewriteError) << "integer multiply";
    EXPECT_THROW(rewrite_coopmat_khr(NvModule(2, NvModule::kHalf, true).words), SpirvRewriteError)
        << "a type as both A and B";
    Words truncated = NvModule().words;
    truncated.pop_back();
    EXPECT_THROW(rewrite_coopmat_khr(truncated), SpirvRewriteError);
}

// The build's workgroup-scope shaders came out of the rewrite whole: no NV
// cooperative-matrix instruction is left, and each KHR type has a Use.
TEST(SpirvCoopmatKhr, BuildsWorkgroupShadersAsKhr) {
    int seen = 0;
    for (const ShaderBinary& s : shader_binaries()) {
        if (s.name.find("_workgroup_coopmat_") == std::string_view::npos) continue;
        ++seen;
        const auto ins = instructions(Words(s.spirv.begin(), s.spirv.end()));
        EXPECT_EQ(ins.count(5358) + ins.count(5359) + ins.count(5360) + ins.count(5361), 0u) << s.name;
        EXPECT_GE(ins.count(4456), 3u) << s.name;
        EXPECT_EQ(ins.count(4459), 2u) << s.name << ": two accumulators";
        for (auto [it, end] = ins.equal_range(4456); it != end; ++it) EXPECT_EQ(it->second.size(), 6u) << s.name;
    }
    if (seen == 0) GTEST_SKIP() << "this build has no workgroup-scope shaders (its glslang lacks GL_NV_cooperative_matrix)";
}

}  // namespace
}  // namespace tessera
