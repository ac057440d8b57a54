// Reading the real GGUF files of the conformance data (skipped when absent).
#include <gtest/gtest.h>

#include <filesystem>

#include "conformance.hpp"
#include "gguf_test_util.hpp"
#include "models/gguf/file.hpp"

namespace tessera::gguf {
namespace {

// Whether `part` lies inside the bytes of `file` (zero copy).
bool views_file(const File& file, std::span<const uint8_t> part) {
    const auto all = file.bytes();
    return part.data() >= all.data() && part.data() + part.size() <= all.data() + all.size();
}

TEST(GgufReader, TinyGqaF32Metadata) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const File file = File::open(conformance / "models" / "tiny-gqa-F32.gguf");
    EXPECT_EQ(file.version(), 3u);
    EXPECT_EQ(file.alignment(), 32u);
    EXPECT_EQ(file.get_string("general.architecture"), "llama");
    EXPECT_EQ(file.get_string("general.name"), "tiny-gqa");
    EXPECT_EQ(file.get_uint("llama.embedding_length"), 256u);
    EXPECT_EQ(file.get_uint("llama.block_count"), 4u);
    EXPECT_EQ(file.get_uint("llama.attention.head_count"), 8u);
    EXPECT_EQ(file.get_uint("llama.attention.head_count_kv"), 4u);
    EXPECT_EQ(file.get_uint("llama.feed_forward_length"), 768u);
    EXPECT_EQ(file.get_uint("llama.context_length"), 2048u);
    EXPECT_EQ(file.get_uint("llama.vocab_size"), 32000u);
    EXPECT_EQ(file.get_float("llama.rope.freq_base"), 10000.0);
    ASSERT_NE(file.find("llama.attention.layer_norm_rms_epsilon"), nullptr);
    EXPECT_EQ(file.find("llama.attention.layer_norm_rms_epsilon")->type(), ValueType::FLOAT32);
    EXPECT_EQ(float(file.get_float("llama.attention.layer_norm_rms_epsilon")), 1e-5f);
    EXPECT_EQ(file.get_uint("general.file_type"), 0u);
    EXPECT_EQ(file.get_string("tokenizer.ggml.model"), "llama");
    EXPECT_EQ(file.get_uint("tokenizer.ggml.bos_token_id"), 1u);
    EXPECT_TRUE(file.get_bool("tokenizer.ggml.add_bos_token", false));
    EXPECT_FALSE(file.get_bool("tokenizer.ggml.add_eos_token", true));

    const Array& tokens = file.get_array("tokenizer.ggml.tokens");
    EXPECT_EQ(tokens.elem_type, ValueType::STRING);
    ASSERT_EQ(tokens.items.size(), 32000u);
    EXPECT_EQ(*tokens.items[1].as_string(), "<s>");
    EXPECT_EQ(*tokens.items[13].as_string(), "<0x0A>");
    EXPECT_EQ(file.get_array("tokenizer.ggml.scores").items.size(), 32000u);
    EXPECT_EQ(file.get_array("tokenizer.ggml.token_type").elem_type, ValueType::INT32);

    EXPECT_EQ(file.tensors().size(), 1u + 4 * 9 + 2);
    const TensorInfo& embd = file.tensor("token_embd.weight");
    EXPECT_EQ(embd.type.id, GgmlType::F32);
    EXPECT_EQ(embd.shape_string(), "[256, 32000]");
    EXPECT_EQ(embd.n_rows(), 32000u);
    EXPECT_EQ(embd.data.size(), 256u * 32000 * 4);
    EXPECT_TRUE(views_file(file, embd.data));
    EXPECT_EQ(file.tensor("blk.3.ffn_down.weight").shape_string(), "[768, 256]");
    EXPECT_EQ(file.tensor("blk.0.attn_k.weight").shape_string(), "[256, 128]");
    EXPECT_EQ(file.tensor("output_norm.weight").shape_string(), "[256]");
    EXPECT_EQ(file.find_tensor("blk.4.ffn_down.weight"), nullptr);
}

TEST(GgufReader, QuantizedModelsHaveTheDocumentedTypes) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const File q4km = File::open(conformance / "models" / "tiny-gqa-Q4_K_M.gguf");
    EXPECT_EQ(q4km.get_uint("general.quantization_version"), 2u);
    EXPECT_EQ(q4km.tensor("token_embd.weight").type.id, GgmlType::Q4_K);
    EXPECT_EQ(q4km.tensor("output.weight").type.id, GgmlType::Q6_K);
    EXPECT_EQ(q4km.tensor("blk.0.attn_v.weight").type.id, GgmlType::Q4_K);
    EXPECT_EQ(q4km.tensor("blk.2.attn_v.weight").type.id, GgmlType::Q6_K);
    EXPECT_EQ(q4km.tensor("blk.1.attn_norm.weight").type.id, GgmlType::F32);
    EXPECT_EQ(q4km.tensors().front().name, "output.weight");  // quantizer order, not F32-file order

    const File stories = File::open(conformance / "models" / "stories260K-Q4_0.gguf");
    EXPECT_EQ(stories.get_uint("general.file_type"), 37u);
    EXPECT_EQ(stories.get_uint("tokenizer.ggml.seperator_token_id"), 4294967295u);
    EXPECT_EQ(stories.tensor("token_embd.weight").type.id, GgmlType::Q4_0);
    EXPECT_EQ(stories.tensor("output.weight").type.id, GgmlType::Q8_0);
    const TensorInfo& down = stories.tensor("blk.4.ffn_down.weight");
    EXPECT_EQ(down.type.id, GgmlType::F16);
    EXPECT_EQ(down.shape_string(), "[172, 64]");
    EXPECT_EQ(down.data.size(), 172u * 64 * 2);
    EXPECT_EQ(stories.find("llama.rope.freq_base"), nullptr);
    EXPECT_EQ(stories.get_float("llama.rope.freq_base", 10000.0), 10000.0);
}

TEST(GgufReader, DequantFilesOfEveryType) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(conformance / "dequant")) {
        if (entry.path().extension() != ".gguf") continue;
        ++files;
        const std::string type_name = entry.path().stem().string();
        const File file = File::open(entry.path());
        SCOPED_TRACE(type_name);
        EXPECT_EQ(file.get_string("dequant.type"), type_name);
        const TensorInfo& t = file.tensor("blk.0.ffn_up.weight");
        EXPECT_EQ(t.type.name, type_name);
        EXPECT_EQ(t.shape_string(), "[256, 768]");
        EXPECT_EQ(t.data.size(), 196608u / t.type.block_elems * t.type.block_bytes);
        EXPECT_EQ(file.data_offset() + t.offset + t.data.size(), std::filesystem::file_size(entry.path()));
        EXPECT_TRUE(views_file(file, t.data));
    }
    EXPECT_EQ(files, 16);
}

TEST(GgufReader, VocabularyOnlyFiles) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const File gpt2 = File::open(conformance / "tokenizer" / "ggml-vocab-gpt-2.gguf");
    EXPECT_TRUE(gpt2.tensors().empty());
    EXPECT_EQ(gpt2.get_string("tokenizer.ggml.model"), "gpt2");
    EXPECT_EQ(gpt2.get_array("tokenizer.ggml.tokens").items.size(), 50257u);
    EXPECT_EQ(gpt2.get_array("tokenizer.ggml.merges").items.size(), 50000u);
    EXPECT_EQ(gpt2.get_uint("tokenizer.ggml.eos_token_id"), 50256u);

    const File spm = File::open(conformance / "tokenizer" / "ggml-vocab-llama-spm.gguf");
    EXPECT_EQ(spm.get_array("tokenizer.ggml.tokens").items.size(), 32000u);
    EXPECT_EQ(spm.get_string("tokenizer.ggml.pre"), "default");
}

TEST(GgufReader, ParseOfCallerBytesMatchesOpen) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const auto path = conformance / "dequant" / "Q4_K.gguf";
    const std::vector<uint8_t> bytes = test::read_bytes(path);
    const File parsed = File::parse(bytes, "in-memory Q4_K");
    const File opened = File::open(path);
    EXPECT_EQ(parsed.name(), "in-memory Q4_K");
    EXPECT_EQ(parsed.metadata().size(), opened.metadata().size());
    EXPECT_EQ(parsed.data_offset(), opened.data_offset());
    const TensorInfo& t = parsed.tensors().at(0);
    EXPECT_EQ(t.data.data(), bytes.data() + parsed.data_offset() + t.offset);
}

TEST(GgufReader, OpenReportsMissingFile) {
    try {
        File::open("/nonexistent/dir/model.gguf");
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        test::expect_mentions(e.what(), {"/nonexistent/dir/model.gguf", "cannot open"});
    }
}

}  // namespace
}  // namespace tessera::gguf
