// The run-time registry: every type of the generated list is registered with
// its definition's properties, and lookups of types the build cannot compute
// with fail with a message that says why.
#include <gtest/gtest.h>

#include <string>

#include "kernels/quant/registry.hpp"
#include "support/error.hpp"
#include "tessera/enabled_quant_types.hpp"

namespace tessera {
namespace {

bool contains(std::string_view list, std::string_view name) {
    return (";" + std::string(list) + ";").find(";" + std::string(name) + ";") != std::string::npos;
}

std::string lookup_error(GgmlType id) {
    try {
        require_quant_type(id, "tensor t");
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(QuantRegistry, RegistersEveryEnabledType) {
    size_t count = 0;
    EnabledQuantTypes::for_each([&]<class T>() {
        ++count;
        const QuantTypeEntry* entry = find_quant_type(T::id);
        ASSERT_NE(entry, nullptr) << T::name;
        EXPECT_EQ(entry->traits.name, T::name);
        EXPECT_EQ(entry->dot_type, T::DotType::id) << T::name;
        EXPECT_EQ(entry->quantizer_matches_ggml, quantizer_matches_ggml<T>()) << T::name;
        EXPECT_EQ(entry->llama_file_type, llama_file_type<T>()) << T::name;
        EXPECT_EQ(&require_quant_type(T::name, "test"), entry);
        EXPECT_TRUE(contains(configured_quant_types(), T::name)) << T::name;
    });
    EXPECT_EQ(enabled_quant_types().size(), count);
    EXPECT_NE(find_quant_type(GgmlType::F32), nullptr) << "F32 is always enabled";
}

TEST(QuantRegistry, ExplainsWhyATypeIsUnavailable) {
    for (uint32_t id = 0; id < 64; ++id) {
        const auto traits = ggml_type_traits(id);
        const std::string error = lookup_error(GgmlType(id));
        if (!traits) {
            EXPECT_EQ(error, "tensor t: unknown ggml type id " + std::to_string(id));
        } else if (find_quant_type(traits->id)) {
            EXPECT_EQ(error, "") << traits->name;
        } else if (contains(kDefinedQuantTypes, traits->name)) {
            EXPECT_EQ(error, "tensor t: type " + std::string(traits->name) +
                                 " is not available in this build (TESSERA_QUANT_TYPES=" +
                                 std::string(configured_quant_types()) +
                                 "; reconfigure with the type added to that CMake option)");
        } else {
            EXPECT_EQ(error, "tensor t: type " + std::string(traits->name) + " (id " + std::to_string(id) +
                                 ") is not supported by tessera");
        }
    }
}

TEST(QuantRegistry, RejectsUnknownTypeNames) {
    try {
        require_quant_type("Q9_9", "quantize");
        FAIL() << "Q9_9 was accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "quantize: unknown quant type 'Q9_9'");
    }
}

}  // namespace
}  // namespace tessera
