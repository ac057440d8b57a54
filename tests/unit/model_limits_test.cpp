// Keys and weights a corrupt (or hostile) file could carry that parse as
// GGUF but make no sense to run: each refused at load with the key or tensor
// named, before any allocation they would size; and a session that cannot fit
// in memory refused with the numbers before its cache is allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "gguf_rewrite.hpp"
#include "gguf_test_util.hpp"
#include "load_error.hpp"
#include "models/model.hpp"
#include "models/session.hpp"
#include "models/synthetic_model.hpp"
#include "models/tokenizer/vocab.hpp"

namespace tessera::model {
namespace {

namespace fs = std::filesystem;
using gguf::test::expect_mentions;
using test::load_error;
using gguf::test::rewritten;
using gguf::test::value_of;
using gguf::test::ScratchDir;

// A small llama with F32 weights.
fs::path small_model(const ScratchDir& dir, int64_t n_layer = 2) {
    SyntheticModel m;
    m.shape = {.name = "custom", .n_vocab = 300, .n_embd = 64, .n_layer = n_layer, .n_head = 2, .n_head_kv = 2,
               .n_ff = 128, .n_ctx = 64};
    m.plan = QuantizePlan::parse("F32");
    const fs::path path = dir / "model.gguf";
    write_synthetic_model(m, path.string());
    return path;
}

TEST(ModelLimits, ABlockCountNoFileCouldHoldIsRefusedBeforeAllocating) {
    ScratchDir dir;
    const fs::path path = rewritten(small_model(dir), "llama.block_count", value_of(uint32_t{1} << 30));
    expect_mentions(load_error(path), {"llama.block_count", "1073741824"});
}

TEST(ModelLimits, NonFiniteOrAbsurdRopeKeysAreRefusedByName) {
    ScratchDir dir;
    const fs::path model = small_model(dir);
    const float inf = std::numeric_limits<float>::infinity();
    expect_mentions(load_error(rewritten(model, "llama.rope.freq_base", value_of(inf))), {"llama.rope.freq_base", "inf"});
    expect_mentions(load_error(rewritten(model, "llama.rope.freq_base", value_of(std::nanf("")))),
                    {"llama.rope.freq_base", "nan"});
    expect_mentions(load_error(rewritten(model, "llama.rope.freq_base", value_of(1e300))), {"llama.rope.freq_base"});
    expect_mentions(load_error(rewritten(model, "llama.rope.scaling.factor", value_of(1e-40f))),  // a denormal: 9.99995e-41
                    {"llama.rope.scaling.factor", "e-41", "out of range"});
    expect_mentions(load_error(rewritten(model, "llama.attention.layer_norm_rms_epsilon", value_of(std::nanf("")))),
                    {"llama.attention.layer_norm_rms_epsilon"});
}

TEST(ModelLimits, NonFiniteNormWeightsAreRefusedNamingTheTensor) {
    ScratchDir dir;
    const fs::path model = small_model(dir);
    for (const float bad : {std::nanf(""), -std::numeric_limits<float>::infinity()}) {
        const fs::path path = rewritten(model, "", std::nullopt, [bad](const std::string& name, std::span<uint8_t> d) {
            if (name == "blk.1.ffn_norm.weight") std::memcpy(d.data() + 5 * sizeof(float), &bad, sizeof bad);
        });
        expect_mentions(load_error(path), {"blk.1.ffn_norm.weight", "index 5", "finite"});
    }
}

// 2^32 + 1 must not be read as token 1.
TEST(ModelLimits, ATokenIdKeyBeyondTheVocabularyIsRefusedByName) {
    ScratchDir dir;
    const fs::path path = rewritten(small_model(dir), "tokenizer.ggml.bos_token_id", value_of(uint64_t{(1ull << 32) + 1}));
    try {
        tokenizer::Vocab::from_gguf(gguf::File::open(path.string()));
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        expect_mentions(e.what(), {"tokenizer.ggml.bos_token_id", "4294967297", "not a token id"});
    }
}

// The file allows a context of 2^30 positions; its KV cache (2 TiB)
// is refused with the numbers instead of being zero-filled.
TEST(ModelLimits, ASessionBeyondTheMachinesMemoryIsRefusedBeforeAllocating) {
    ScratchDir dir;
    const int64_t huge = int64_t{1} << 30;
    const fs::path path = rewritten(small_model(dir, 8), "llama.context_length", value_of(uint32_t(huge)));
    const Model m(gguf::File::open(path.string()));
    try {
        Session s(m, {.n_ctx = huge});
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        expect_mentions(e.what(), {"1073741824 tokens", "KV cache 2097152 MiB", "MiB of memory", "smaller context"});
    }
    EXPECT_NO_THROW(Session(m, {.n_ctx = 64}));
}

}  // namespace
}  // namespace tessera::model
