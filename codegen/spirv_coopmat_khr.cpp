#include "codegen/spirv_coopmat_khr.hpp"

#include <cstdio>
#include <map>
#include <set>

namespace tessera::codegen {
namespace {

// Opcodes, capabilities and enumerants of the SPIR-V specification and its
// SPV_NV_cooperative_matrix / SPV_KHR_cooperative_matrix extensions.
enum : uint32_t {
    kMagic = 0x07230203,
    OpExtension = 10,
    OpCapability = 17,
    OpTypeInt = 21,
    OpTypeFloat = 22,
    OpConstantTrue = 41,
    OpConstantFalse = 42,
    OpConstant = 43,
    OpTypeCooperativeMatrixNV = 5358,
    OpCooperativeMatrixLoadNV = 5359,
    OpCooperativeMatrixStoreNV = 5360,
    OpCooperativeMatrixMulAddNV = 5361,
    OpCooperativeMatrixLengthNV = 5362,
    OpTypeCooperativeMatrixKHR = 4456,
    OpCooperativeMatrixLoadKHR = 4457,
    OpCooperativeMatrixStoreKHR = 4458,
    OpCooperativeMatrixMulAddKHR = 4459,
    OpCooperativeMatrixLengthKHR = 4460,
    CapabilityCooperativeMatrixNV = 5357,
    CapabilityCooperativeMatrixKHR = 6022,
    ScopeWorkgroup = 2,
    UseA = 0,
    UseB = 1,
    UseAccumulator = 2,
    LayoutRowMajor = 0,
    LayoutColumnMajor = 1,
};

// The value-producing instructions whose result may be a cooperative matrix
// (result type in word 1, result id in word 2): OpUndef, OpConstantComposite,
// OpConstantNull, OpSpecConstantComposite, OpFunctionParameter,
// OpFunctionCall, OpLoad, OpCompositeConstruct, OpCopyObject, OpFConvert,
// OpFNegate, OpFAdd, OpFSub, OpFMul, OpFDiv, OpMatrixTimesScalar, OpSelect,
// OpPhi and the NV load and multiply.
const std::set<uint32_t> kMatrixValues = {1,   44,  46,  51,  55,  57,  61,  80,  83, 115, 127,
                                          129, 131, 133, 136, 143, 169, 245, OpCooperativeMatrixLoadNV,
                                          OpCooperativeMatrixMulAddNV};

using Instruction = std::vector<uint32_t>;

uint32_t opcode(const Instruction& i) { return i[0] & 0xFFFF; }

std::string literal_string(const Instruction& i, size_t first) {
    std::string s;
    for (size_t w = first; w < i.size(); ++w)
        for (int b = 0; b < 4; ++b) {
            const char c = char((i[w] >> (8 * b)) & 0xFF);
            if (c == 0) return s;
            s += c;
        }
    return s;
}

std::vector<uint32_t> string_words(const std::string& s) {
    std::vector<uint32_t> w(s.size() / 4 + 1, 0);
    for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
    return w;
}

Instruction make(uint32_t op, std::vector<uint32_t> operands) {
    operands.insert(operands.begin(), (uint32_t(operands.size() + 1) << 16) | op);
    return operands;
}

std::vector<Instruction> split(std::span<const uint32_t> module) {
    if (module.size() < 5 || module[0] != kMagic) throw SpirvRewriteError("not a SPIR-V module");
    std::vector<Instruction> out;
    for (size_t i = 5; i < module.size();) {
        const uint32_t n = module[i] >> 16;
        if (n == 0 || i + n > module.size()) throw SpirvRewriteError("truncated instruction at word " + std::to_string(i));
        out.emplace_back(module.begin() + long(i), module.begin() + long(i + n));
        i += n;
    }
    return out;
}

}  // namespace

std::vector<uint32_t> rewrite_coopmat_khr(std::span<const uint32_t> module) {
    const std::vector<Instruction> in = split(module);
    uint32_t bound = module[3];

    std::map<uint32_t, uint32_t> type_of, constant_value, float_types;
    std::map<uint32_t, bool> bool_constant;
    std::map<uint32_t, Instruction> matrix_types;
    uint32_t uint_type = 0;
    for (const auto& i : in) {
        const uint32_t op = opcode(i);
        if (kMatrixValues.count(op) && i.size() >= 3) type_of[i[2]] = i[1];
        if (op == OpConstantTrue || op == OpConstantFalse) bool_constant[i[2]] = op == OpConstantTrue;
        if (op == OpConstant && i.size() == 4) constant_value[i[2]] = i[3];
        if (op == OpTypeFloat) float_types[i[1]] = i[2];
        if (op == OpTypeCooperativeMatrixNV) matrix_types[i[1]] = i;
        if (op == OpTypeInt && i[2] == 32 && i[3] == 0 && uint_type == 0) uint_type = i[1];
    }
    if (matrix_types.empty()) throw SpirvRewriteError("the module has no NV cooperative matrix");
    if (uint_type == 0) throw SpirvRewriteError("the module declares no 32-bit unsigned integer type");

    std::map<uint32_t, uint32_t> use;
    auto set_use = [&](uint32_t type, uint32_t u) {
        if (!matrix_types.count(type)) throw SpirvRewriteError("a multiply's operand is not a cooperative matrix");
        const auto [it, fresh] = use.emplace(type, u);
        if (!fresh && it->second != u)
            throw SpirvRewriteError("cooperative matrix type %" + std::to_string(type) + " is multiplied in two roles");
    };
    auto type_of_value = [&](uint32_t id) {
        const auto it = type_of.find(id);
        if (it == type_of.end()) throw SpirvRewriteError("no type found for value %" + std::to_string(id));
        return it->second;
    };
    for (const auto& i : in)
        if (opcode(i) == OpCooperativeMatrixMulAddNV) {
            set_use(i[1], UseAccumulator);
            set_use(type_of_value(i[3]), UseA);
            set_use(type_of_value(i[4]), UseB);
            set_use(type_of_value(i[5]), UseAccumulator);
            if (!float_types.count(matrix_types.at(type_of_value(i[3]))[2]))
                throw SpirvRewriteError("an integer cooperative-matrix multiply needs signedness operands; not rewritten");
        }
    bool workgroup_scope = false;
    for (const auto& [id, t] : matrix_types) {
        const auto scope = constant_value.find(t[3]);
        if (scope == constant_value.end()) throw SpirvRewriteError("a cooperative matrix's scope is not a constant");
        workgroup_scope = workgroup_scope || scope->second == ScopeWorkgroup;
    }

    // Uses and layouts are ids of 32-bit constants: 0, 1 and 2, new ids.
    const uint32_t c0 = bound++, c1 = bound++, c2 = bound++;
    const uint32_t constant_of[3] = {c0, c1, c2};
    auto layout = [&](uint32_t column_major) {
        const auto it = bool_constant.find(column_major);
        if (it == bool_constant.end()) throw SpirvRewriteError("a load's or store's ColumnMajor is not a constant");
        return constant_of[it->second ? LayoutColumnMajor : LayoutRowMajor];
    };

    std::vector<Instruction> out;
    for (const auto& i : in) {
        const uint32_t op = opcode(i);
        if (op == OpCapability && i[1] == CapabilityCooperativeMatrixNV) {
            out.push_back(make(OpCapability, {CapabilityCooperativeMatrixKHR}));
        } else if (op == OpExtension && literal_string(i, 1) == "SPV_NV_cooperative_matrix") {
            out.push_back(make(OpExtension, string_words("SPV_KHR_cooperative_matrix")));
            if (workgroup_scope) out.push_back(make(OpExtension, string_words("SPV_NV_cooperative_matrix2")));
        } else if (op == OpTypeCooperativeMatrixNV) {
            const auto u = use.find(i[1]);
            out.push_back(make(OpTypeCooperativeMatrixKHR,
                               {i[1], i[2], i[3], i[4], i[5], constant_of[u == use.end() ? UseAccumulator : u->second]}));
        } else if (op == OpCooperativeMatrixLoadNV) {  // type, result, pointer, stride, column-major[, access]
            std::vector<uint32_t> operands{i[1], i[2], i[3], layout(i[5]), i[4]};
            operands.insert(operands.end(), i.begin() + 6, i.end());
            out.push_back(make(OpCooperativeMatrixLoadKHR, operands));
        } else if (op == OpCooperativeMatrixStoreNV) {  // pointer, object, stride, column-major[, access]
            std::vector<uint32_t> operands{i[1], i[2], layout(i[4]), i[3]};
            operands.insert(operands.end(), i.begin() + 5, i.end());
            out.push_back(make(OpCooperativeMatrixStoreKHR, operands));
        } else if (op == OpCooperativeMatrixMulAddNV) {
            out.push_back(make(OpCooperativeMatrixMulAddKHR, {i[1], i[2], i[3], i[4], i[5]}));
        } else if (op == OpCooperativeMatrixLengthNV) {
            out.push_back(make(OpCooperativeMatrixLengthKHR, {i[1], i[2], i[3]}));
        } else {
            out.push_back(i);
        }
        if (op == OpTypeInt && i[1] == uint_type)
            for (uint32_t v = 0; v < 3; ++v) out.push_back(make(OpConstant, {uint_type, constant_of[v], v}));
    }

    std::vector<uint32_t> result(module.begin(), module.begin() + 5);
    result[3] = bound;
    for (const auto& i : out) result.insert(result.end(), i.begin(), i.end());
    return result;
}

std::string spirv_header(std::span<const uint32_t> module, const std::string& name) {
    std::string s = "#pragma once\nconst uint32_t " + name + "[] = {";
    char word[16];
    for (size_t i = 0; i < module.size(); ++i) {
        std::snprintf(word, sizeof word, "%s0x%08x", i % 8 == 0 ? "\n\t" : "", module[i]);
        s += word;
        if (i + 1 < module.size()) s += ',';
    }
    return s + "\n};\n";
}

}  // namespace tessera::codegen
