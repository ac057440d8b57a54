// Tokenizers: tiny hand-built vocabularies (expected ids worked out by hand
// from the vocabularies below), the pre-tokenizer splits, GGUF loading errors,
// and the llama.cpp conformance cases and golden prompts when the data is present.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "conformance.hpp"
#include "gguf_test_util.hpp"
#include "models/gguf/writer.hpp"
#include "models/tokenizer/pretokenizer.hpp"
#include "models/tokenizer/stream_decoder.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

namespace fs = std::filesystem;
using gguf::Array;
using gguf::Value;
using gguf::ValueType;
using gguf::test::ScratchDir;
using Ids = std::vector<TokenId>;

// ---------------------------------------------------------------------------
// Tiny vocabularies written to GGUF files

Value strings(const std::vector<std::string>& items) {
    Array a{ValueType::STRING, {}};
    for (const auto& s : items) a.items.push_back(Value{s});
    return Value{a};
}
Value floats(const std::vector<float>& items) {
    Array a{ValueType::FLOAT32, {}};
    for (float f : items) a.items.push_back(Value{f});
    return Value{a};
}
Value ints(const std::vector<int32_t>& items) {
    Array a{ValueType::INT32, {}};
    for (int32_t i : items) a.items.push_back(Value{i});
    return Value{a};
}

gguf::File write_and_open(const gguf::Writer& writer, const ScratchDir& dir, const std::string& name = "vocab.gguf") {
    const auto path = dir / name;
    writer.write(path.string());
    return gguf::File::open(path.string());
}

// SentencePiece-style: U+2581 is the space mark.
const std::string kSp = "\xE2\x96\x81";

struct SpmToken {
    std::string text;
    float score;
    TokenType type;
};

std::vector<SpmToken> tiny_spm_tokens() {
    return {
        {"<unk>", 0, TokenType::unknown},      // 0
        {"<s>", 0, TokenType::control},        // 1
        {"</s>", 0, TokenType::control},       // 2
        {"<0x0A>", 0, TokenType::byte},        // 3
        {"<0xC3>", 0, TokenType::byte},        // 4
        {"<0xA9>", 0, TokenType::byte},        // 5
        {kSp, -1, TokenType::normal},          // 6
        {"a", -1, TokenType::normal},          // 7
        {"b", -1, TokenType::normal},          // 8
        {"c", -1, TokenType::normal},          // 9
        {"ab", -1.0f, TokenType::normal},      // 10
        {"bc", -0.5f, TokenType::normal},      // 11: beats "ab"
        {kSp + "a", -3, TokenType::normal},    // 12
        {"abc", -2, TokenType::normal},        // 13
        {"x", -1, TokenType::normal},          // 14
        {"xx", -1, TokenType::normal},         // 15
        {"<|tool|>", 0, TokenType::user_defined},  // 16
    };
}

gguf::Writer spm_writer(const std::vector<SpmToken>& tokens) {
    std::vector<std::string> texts;
    std::vector<float> scores;
    std::vector<int32_t> types;
    for (const auto& t : tokens) {
        texts.push_back(t.text);
        scores.push_back(t.score);
        types.push_back(int32_t(t.type));
    }
    gguf::Writer w;
    w.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    w.add_kv("tokenizer.ggml.tokens", strings(texts));
    w.add_kv("tokenizer.ggml.scores", floats(scores));
    w.add_kv("tokenizer.ggml.token_type", ints(types));
    return w;
}

std::unique_ptr<Tokenizer> tiny_spm(const ScratchDir& dir) {
    return Tokenizer::from_gguf(write_and_open(spm_writer(tiny_spm_tokens()), dir));
}

Ids plain(const Tokenizer& t, std::string_view text) { return t.encode(text, {.add_special = false}); }

TEST(TokenizerSpm, MergesHighestScoreFirst) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    // "▁abc": bc (-0.5) beats ab (-1) and ▁a (-3); then a+bc = abc (-2); ▁+abc is no token.
    EXPECT_EQ(plain(*t, "abc"), (Ids{6, 13}));
    // "▁ab": ab (-1) beats ▁a (-3), and ▁+ab is no token.
    EXPECT_EQ(plain(*t, "ab"), (Ids{6, 10}));
    // "▁a▁b": only ▁a merges.
    EXPECT_EQ(plain(*t, "a b"), (Ids{12, 6, 8}));
}

TEST(TokenizerSpm, EqualScoresMergeLeftmostFirst) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    EXPECT_EQ(plain(*t, "xxx"), (Ids{6, 15, 14}));  // (xx)x, not x(xx)
}

TEST(TokenizerSpm, ByteFallbackAndUnknown) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    EXPECT_EQ(plain(*t, "\n"), (Ids{6, 3}));                 // "▁" then <0x0A>, never "▁\n"
    EXPECT_EQ(plain(*t, "\xC3\xA9" "a"), (Ids{6, 4, 5, 7}));  // é = <0xC3><0xA9>
    EXPECT_EQ(plain(*t, "za"), (Ids{6, 0, 7}));              // no byte token for 'z': <unk>
    EXPECT_EQ(plain(*t, ""), Ids{});
}

TEST(TokenizerSpm, BosEosAndSpecialTokens) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    EXPECT_EQ(t->encode("a"), (Ids{1, 12}));  // llama defaults: BOS yes, EOS no
    // Control tokens in the text are plain text unless asked for; a space prefix follows each special token.
    EXPECT_EQ(t->encode("</s>a", {.add_special = false, .parse_special = true}), (Ids{2, 12}));
    EXPECT_EQ(plain(*t, "</s>"), (Ids{6, 0, 0, 0, 0}));  // '<' '/' 's' '>' are unknown characters here
    // User-defined tokens are always matched.
    EXPECT_EQ(plain(*t, "a<|tool|>b"), (Ids{12, 16, 6, 8}));

    ScratchDir dir2;
    auto w = spm_writer(tiny_spm_tokens());
    w.add_kv("tokenizer.ggml.add_bos_token", Value{false});
    w.add_kv("tokenizer.ggml.add_eos_token", Value{true});
    w.add_kv("tokenizer.ggml.add_space_prefix", Value{false});
    const auto t2 = Tokenizer::from_gguf(write_and_open(w, dir2));
    EXPECT_EQ(t2->encode("a"), (Ids{7, 2}));
    EXPECT_EQ(t2->decode(Ids{7, 6, 8}), "a b");  // no prefix added, none removed
}

// Gemma 3's kind of SentencePiece vocabulary: tokenizer.ggml.add_space_prefix
// false, <bos> 2, the turn markers control tokens, a user-defined token, "\n" a
// piece of its own, byte tokens last. Expected ids worked out by hand; llama.cpp's
// llama_tokenize gives the same for this vocabulary (checked once, outside the tests).
std::vector<SpmToken> gemma_like_tokens() {
    std::vector<SpmToken> tokens = {
        {"<pad>", 0, TokenType::control},             // 0
        {"<eos>", 0, TokenType::control},             // 1
        {"<bos>", 0, TokenType::control},             // 2
        {"<unk>", 0, TokenType::unknown},             // 3
        {"<start_of_turn>", 0, TokenType::control},   // 4
        {"<end_of_turn>", 0, TokenType::control},     // 5
        {"<start_of_image>", 0, TokenType::user_defined},  // 6
        {"\n", 0, TokenType::normal},                 // 7
        {kSp, 0, TokenType::normal},                  // 8
    };
    // 9..20: single letters; 21..33: words, each reachable by one chain of merges.
    for (const char* c : {"H", "i", "t", "h", "e", "r", "u", "s", "m", "o", "d", "l"}) tokens.push_back({c, 0, TokenType::normal});
    for (const std::string& w : std::vector<std::string>{"Hi", "th", "the", "ther", "there", kSp + "there", "us", "use",
                                                         "user", "mo", "mod", "mode", "model"})
        tokens.push_back({w, -1, TokenType::normal});
    // 34..289: <0x00>..<0xFF>.
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        tokens.push_back({name, 0, TokenType::byte});
    }
    return tokens;
}

std::unique_ptr<Tokenizer> gemma_like(const ScratchDir& dir, bool add_space_prefix) {
    auto w = spm_writer(gemma_like_tokens());
    w.add_kv("tokenizer.ggml.bos_token_id", Value{uint32_t(2)});
    w.add_kv("tokenizer.ggml.eos_token_id", Value{uint32_t(1)});
    w.add_kv("tokenizer.ggml.unknown_token_id", Value{uint32_t(3)});
    w.add_kv("tokenizer.ggml.add_space_prefix", Value{add_space_prefix});
    return Tokenizer::from_gguf(write_and_open(w, dir, add_space_prefix ? "gemma-prefix.gguf" : "gemma.gguf"));
}

TEST(TokenizerSpm, NoSpacePrefixAsInGemma3) {
    ScratchDir dir;
    const auto t = gemma_like(dir, false);
    EXPECT_FALSE(t->strips_leading_space());
    const std::string chat = "<start_of_turn>user\nHi there<end_of_turn>\n<start_of_turn>model\n";
    // No ▁ (8) starts the text or follows a special token; spaces in the text still become ▁.
    EXPECT_EQ(t->encode(chat, {.parse_special = true}), (Ids{2, 4, 29, 7, 21, 26, 5, 7, 4, 33, 7}));
    EXPECT_EQ(plain(*t, "Hi  there"), (Ids{21, 8, 26}));
    EXPECT_EQ(plain(*t, " Hi"), (Ids{8, 21}));
    // A user-defined token is matched without parse_special, and no ▁ follows it either.
    EXPECT_EQ(plain(*t, "Hi<start_of_image>there"), (Ids{21, 6, 25}));
    // Without parse_special a control token's text is text: '<' is <0x3C>, 34 + 0x3C = 94.
    EXPECT_EQ(plain(*t, "<end_of_turn>").front(), 94);
    // parse_special matches the unknown token's text too, as llama.cpp does.
    EXPECT_EQ(t->encode("<unk>there", {.add_special = false, .parse_special = true}), (Ids{3, 25}));
    // Decoding removes no leading space, since encoding added none.
    EXPECT_EQ(t->decode(Ids{2, 4, 29, 7, 21, 26, 5}), "user\nHi there");
    EXPECT_EQ(t->decode(Ids{26, 7}), " there\n");
    EXPECT_EQ(t->decode(Ids{2, 4, 29, 7, 21, 26, 5}, true), "<bos><start_of_turn>user\nHi there<end_of_turn>");

    // The same vocabulary with the prefix: ▁ starts the text and follows every special token.
    const auto prefixed = gemma_like(dir, true);
    EXPECT_EQ(prefixed->encode(chat, {.parse_special = true}), (Ids{2, 4, 8, 29, 7, 21, 26, 5, 8, 7, 4, 8, 33, 7}));
    EXPECT_EQ(plain(*prefixed, "Hi<start_of_image>there"), (Ids{8, 21, 6, 26}));
}

// Phi-3's vocabularies (recognized by general.name, as llama.cpp does): the
// special tokens but <unk>, <s> and <|endoftext|> swallow the whitespace after them.
TEST(TokenizerSpm, Phi3SpecialTokensSwallowTheWhitespaceAfterThem) {
    ScratchDir dir;
    auto w = spm_writer(tiny_spm_tokens());
    w.add_kv("general.name", Value{std::string("Phi-3-mini-4k-instruct")});
    const auto phi3 = Tokenizer::from_gguf(write_and_open(w, dir, "phi3.gguf"));
    // " \n b" after <|tool|> is gone but its "b", which starts a segment: ▁ b (no "▁b" token).
    EXPECT_EQ(plain(*phi3, "a<|tool|> \n b"), (Ids{12, 16, 6, 8}));
    EXPECT_EQ(phi3->encode("</s>\ta", {.add_special = false, .parse_special = true}), (Ids{2, 12}));
    EXPECT_EQ(phi3->encode("<s> a", {.add_special = false, .parse_special = true}), (Ids{1, 6, 12}));
    EXPECT_EQ(phi3->encode("<unk> a", {.add_special = false, .parse_special = true}), (Ids{0, 6, 12}));
    // Another vocabulary keeps the whitespace: ▁▁ \n ▁b.
    EXPECT_EQ(plain(*tiny_spm(dir), "a<|tool|> \n b"), (Ids{12, 16, 6, 6, 3, 6, 8}));
}

TEST(TokenizerSpm, Decode) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    EXPECT_EQ(t->decode(Ids{1, 12, 6, 8, 2}), "a b");  // leading space after BOS removed, controls silent
    EXPECT_EQ(t->decode(Ids{1, 12}, true), "<s>a");
    EXPECT_EQ(t->piece(12), " a");
    EXPECT_EQ(t->piece(3), "\n");
    EXPECT_EQ(t->decode(Ids{6, 3}), "\n");
    for (const std::string text : {"abc", " a  b ", "\n\xC3\xA9", "xxx b"})
        EXPECT_EQ(t->decode(t->encode(text)), text);
    EXPECT_THROW(t->piece(99), Error);
}

TEST(TokenizerSpm, StreamDecoderHoldsPartialUtf8) {
    ScratchDir dir;
    const auto t = tiny_spm(dir);
    StreamDecoder d(*t);
    EXPECT_EQ(d.push(1), "");
    EXPECT_EQ(d.push(12), "a");
    EXPECT_EQ(d.push(4), "");  // first byte of é
    EXPECT_EQ(d.push(5), "\xC3\xA9");
    EXPECT_EQ(d.push(4), "");
    EXPECT_EQ(d.finish(), "\xC3");  // never completed
}

// Byte-level BPE: "Ġ" (U+0120) is the space byte.
const std::string kG = "\xC4\xA0";

std::unique_ptr<Tokenizer> tiny_bpe(const ScratchDir& dir, const std::vector<std::string>& merges,
                                    const std::string& pre = "gpt-2") {
    gguf::Writer w;
    w.add_kv("tokenizer.ggml.model", Value{std::string("gpt2")});
    w.add_kv("tokenizer.ggml.pre", Value{pre});
    //                          0    1    2    3   4     5     6     7      8              9
    w.add_kv("tokenizer.ggml.tokens", strings({"a", "b", "c", kG, "ab", "bc", "abc", kG + "a", "<|endoftext|>", "\xC4\x8A"}));
    w.add_kv("tokenizer.ggml.token_type", ints({1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));  // EOS becomes control
    w.add_kv("tokenizer.ggml.merges", strings(merges));
    w.add_kv("tokenizer.ggml.eos_token_id", Value{uint32_t(8)});
    return Tokenizer::from_gguf(write_and_open(w, dir, "bpe-" + pre + ".gguf"));
}

TEST(TokenizerBpe, MergesByRank) {
    ScratchDir dir;
    const auto bc_first = tiny_bpe(dir, {"b c", "a b", kG + " a"});
    EXPECT_EQ(bc_first->encode("abc"), (Ids{0, 5}));
    EXPECT_EQ(bc_first->encode("abc ab"), (Ids{0, 5, 3, 4}));  // words "abc", "Ġab": ab (rank 1) before Ġa (rank 2)
    const auto ab_first = tiny_bpe(dir, {"a b", "b c", "ab c"});
    EXPECT_EQ(ab_first->encode("abc"), (Ids{6}));
    EXPECT_EQ(ab_first->encode("bcab"), (Ids{5, 4}));
}

TEST(TokenizerBpe, BytesSpecialsAndDecode) {
    ScratchDir dir;
    const auto t = tiny_bpe(dir, {"a b"});
    EXPECT_EQ(t->encode("a\n"), (Ids{0, 9}));  // "\n" is byte character U+010A
    EXPECT_EQ(t->encode("a<|endoftext|>", {.parse_special = true}), (Ids{0, 8}));
    EXPECT_EQ(t->decode(Ids{7, 1, 9}), " ab\n");  // no space is stripped for BPE
    EXPECT_EQ(t->decode(Ids{0, 8}), "a");
    EXPECT_EQ(t->decode(Ids{0, 8}, true), "a<|endoftext|>");
    EXPECT_THROW(t->encode("z"), Error);  // no token for byte 'z' and no <unk>
}

TEST(TokenizerBpe, Llama3TakesWholeWordTokens) {
    ScratchDir dir;
    // "abc" is a token, but no merge sequence reaches it.
    EXPECT_EQ(tiny_bpe(dir, {"a b"}, "gpt-2")->encode("abc"), (Ids{4, 2}));
    EXPECT_EQ(tiny_bpe(dir, {"a b"}, "llama-bpe")->encode("abc"), (Ids{6}));
}

// A BPE vocabulary with BOS id 1 ("<s>") and tokenizer.ggml.add_bos_token only where given.
gguf::File bpe_with_bos(const ScratchDir& dir, const std::string& pre, std::optional<bool> add_bos) {
    gguf::Writer w;
    w.add_kv("tokenizer.ggml.model", Value{std::string("gpt2")});
    w.add_kv("tokenizer.ggml.pre", Value{pre});
    w.add_kv("tokenizer.ggml.tokens", strings({"a", "<s>"}));
    w.add_kv("tokenizer.ggml.merges", strings({"a a"}));
    w.add_kv("tokenizer.ggml.bos_token_id", Value{uint32_t(1)});
    if (add_bos) w.add_kv("tokenizer.ggml.add_bos_token", Value{*add_bos});
    return write_and_open(w, dir, "bos-" + pre + ".gguf");
}

// Without tokenizer.ggml.add_bos_token, BPE adds BOS only for the pre-tokenizers
// llama.cpp names (Llama-3's and its aliases, Tekken, Chameleon); the key wins where present.
TEST(TokenizerBpe, AddBosDefaultsFollowThePreTokenizer) {
    ScratchDir dir;
    for (const char* pre : {"", "default", "gpt-2", "qwen2", "deepseek-r1-qwen"})
        EXPECT_EQ(Tokenizer::from_gguf(bpe_with_bos(dir, pre, std::nullopt))->encode("a"), Ids{0}) << pre;
    for (const char* pre : {"llama-bpe", "llama3", "llama-v3"})
        EXPECT_EQ(Tokenizer::from_gguf(bpe_with_bos(dir, pre, std::nullopt))->encode("a"), (Ids{1, 0})) << pre;
    // Pre-tokenizers tessera cannot split with still get llama.cpp's flag in the vocabulary.
    for (const char* pre : {"falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano", "tekken", "chameleon"})
        EXPECT_TRUE(Vocab::from_gguf(bpe_with_bos(dir, pre, std::nullopt)).data().add_bos) << pre;
    for (const char* pre : {"deepseek-coder", "command-r", "gpt-4o"})
        EXPECT_FALSE(Vocab::from_gguf(bpe_with_bos(dir, pre, std::nullopt)).data().add_bos) << pre;

    EXPECT_EQ(Tokenizer::from_gguf(bpe_with_bos(dir, "llama-bpe", false))->encode("a"), Ids{0});
    EXPECT_EQ(Tokenizer::from_gguf(bpe_with_bos(dir, "qwen2", true))->encode("a"), (Ids{1, 0}));
}

// ---------------------------------------------------------------------------
// Pre-tokenizers

using Words = std::vector<std::string_view>;

TEST(TokenizerPre, Gpt2Splits) {
    EXPECT_EQ(pretokenize("I've 2 cats,  and\tdogs!\n", PreTokenizer::gpt2),
              (Words{"I", "'ve", " 2", " cats", ",", " ", " and", "\t", "dogs", "!", "\n"}));
    EXPECT_EQ(pretokenize("DON'T 12345", PreTokenizer::gpt2), (Words{"DON", "'", "T", " 12345"}));
    EXPECT_EQ(pretokenize("a\n\n b  ", PreTokenizer::gpt2), (Words{"a", "\n\n", " b", "  "}));
    EXPECT_EQ(pretokenize("caf\xC3\xA9 \xD0\x96\xD0\xB8 \xD9\xA3", PreTokenizer::gpt2),  // café Жи ٣ (Arabic-Indic 3)
              (Words{"caf\xC3\xA9", " \xD0\x96\xD0\xB8", " \xD9\xA3"}));
    EXPECT_EQ(pretokenize("", PreTokenizer::gpt2), Words{});
}

TEST(TokenizerPre, Llama3Splits) {
    EXPECT_EQ(pretokenize("I've 2 cats,  and\tdogs!\n", PreTokenizer::llama3),
              (Words{"I", "'ve", " ", "2", " cats", ",", " ", " and", "\tdogs", "!\n"}));
    EXPECT_EQ(pretokenize("DON'T 12345", PreTokenizer::llama3), (Words{"DON", "'T", " ", "123", "45"}));
    EXPECT_EQ(pretokenize("a\n\n b  ", PreTokenizer::llama3), (Words{"a", "\n\n", " b", "  "}));
    EXPECT_EQ(pretokenize("x \n \ny", PreTokenizer::llama3), (Words{"x", " \n \n", "y"}));
}

TEST(TokenizerPre, Qwen2SplitsDigitsOneByOne) {
    EXPECT_EQ(pretokenize("I've 2 cats,  and\tdogs!\n", PreTokenizer::qwen2),
              pretokenize("I've 2 cats,  and\tdogs!\n", PreTokenizer::llama3));
    EXPECT_EQ(pretokenize("DON'T 12345", PreTokenizer::qwen2), (Words{"DON", "'T", " ", "1", "2", "3", "4", "5"}));
    EXPECT_EQ(pretokenize("x1\xD9\xA3y", PreTokenizer::qwen2), (Words{"x", "1", "\xD9\xA3", "y"}));  // ٣ is a digit
}

TEST(TokenizerPre, UnknownNameIsAnError) {
    EXPECT_EQ(pretokenizer_named("llama-bpe"), PreTokenizer::llama3);
    EXPECT_EQ(pretokenizer_named("gpt-2"), PreTokenizer::gpt2);
    EXPECT_EQ(pretokenizer_named("qwen2"), PreTokenizer::qwen2);
    try {
        pretokenizer_named("deepseek-coder");
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"tokenizer.ggml.pre", "deepseek-coder"});
    }
}

// ---------------------------------------------------------------------------
// Loading errors

std::string load_error(const gguf::Writer& w, const ScratchDir& dir) {
    try {
        Tokenizer::from_gguf(write_and_open(w, dir));
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "loading succeeded, expected a tessera::Error";
    return "";
}

TEST(TokenizerLoad, Errors) {
    ScratchDir dir;
    gguf::Writer none;
    none.add_kv("general.name", Value{std::string("x")});
    gguf::test::expect_mentions(load_error(none, dir), {"tokenizer.ggml.model", "vocab.gguf"});

    gguf::Writer bad_model;
    bad_model.add_kv("tokenizer.ggml.model", Value{std::string("rwkv")});
    bad_model.add_kv("tokenizer.ggml.tokens", strings({"a"}));
    gguf::test::expect_mentions(load_error(bad_model, dir), {"tokenizer.ggml.model", "rwkv"});

    gguf::Writer mismatched;
    mismatched.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    mismatched.add_kv("tokenizer.ggml.tokens", strings({"a", "b"}));
    mismatched.add_kv("tokenizer.ggml.scores", floats({0}));
    gguf::test::expect_mentions(load_error(mismatched, dir), {"tokenizer.ggml.scores", "1", "2"});

    gguf::Writer bad_types;
    bad_types.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    bad_types.add_kv("tokenizer.ggml.tokens", strings({"a", "b"}));
    bad_types.add_kv("tokenizer.ggml.token_type", ints({1, 1, 1}));
    gguf::test::expect_mentions(load_error(bad_types, dir), {"tokenizer.ggml.token_type", "3"});

    gguf::Writer no_merges;
    no_merges.add_kv("tokenizer.ggml.model", Value{std::string("gpt2")});
    no_merges.add_kv("tokenizer.ggml.tokens", strings({"a"}));
    gguf::test::expect_mentions(load_error(no_merges, dir), {"tokenizer.ggml.merges"});

    gguf::Writer bad_pre;
    bad_pre.add_kv("tokenizer.ggml.model", Value{std::string("gpt2")});
    bad_pre.add_kv("tokenizer.ggml.pre", Value{std::string("mystery")});
    bad_pre.add_kv("tokenizer.ggml.tokens", strings({"a", "b"}));
    bad_pre.add_kv("tokenizer.ggml.merges", strings({"a b"}));
    gguf::test::expect_mentions(load_error(bad_pre, dir), {"tokenizer.ggml.pre", "mystery"});

    gguf::Writer bad_bos;
    bad_bos.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    bad_bos.add_kv("tokenizer.ggml.tokens", strings({"a"}));
    bad_bos.add_kv("tokenizer.ggml.bos_token_id", Value{uint32_t(7)});
    gguf::test::expect_mentions(load_error(bad_bos, dir), {"tokenizer.ggml.bos_token_id", "7"});
}

// ---------------------------------------------------------------------------
// Conformance data

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
    std::string text;
    Ids ids;
};

// The .inp/.out pair of a vocabulary (README section 7).
std::vector<Case> read_cases(const fs::path& vocab) {
    const std::string inp = read_file(vocab.string() + ".inp");
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<Case> cases;
    for (size_t pos = 0; pos < inp.size();) {
        const size_t end = inp.find(sep, pos);
        if (end == std::string::npos) break;
        cases.push_back({inp.substr(pos, end - pos), {}});
        pos = end + sep.size();
    }
    std::istringstream out(read_file(vocab.string() + ".out"));
    std::string line;
    for (auto& c : cases) {
        if (!std::getline(out, line)) break;
        std::istringstream ids(line);
        for (TokenId id; ids >> id;) c.ids.push_back(id);
    }
    return cases;
}

void check_cases(const fs::path& vocab_path) {
    const auto tokenizer = Tokenizer::from_gguf(gguf::File::open(vocab_path.string()));
    const auto cases = read_cases(vocab_path);
    ASSERT_EQ(cases.size(), 46u);
    int passed = 0;
    for (const auto& c : cases) {
        const Ids ids = tokenizer->encode(c.text, {.add_special = false});
        EXPECT_EQ(ids, c.ids) << "text: \"" << c.text << "\"";
        EXPECT_EQ(tokenizer->decode(ids), c.text);
        StreamDecoder stream(*tokenizer);
        std::string streamed;
        for (const TokenId id : ids) streamed += stream.push(id);
        EXPECT_EQ(streamed + stream.finish(), c.text);
        passed += ids == c.ids;
    }
    EXPECT_EQ(passed, 46);
}

TEST(TokenizerConformance, LlamaSpmCases) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    check_cases(dir / "tokenizer/ggml-vocab-llama-spm.gguf");
}

TEST(TokenizerConformance, Gpt2BpeCases) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    check_cases(dir / "tokenizer/ggml-vocab-gpt-2.gguf");
}

TEST(TokenizerConformance, Gpt2EndOfTextIsControl) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto t = Tokenizer::from_gguf(gguf::File::open((dir / "tokenizer/ggml-vocab-gpt-2.gguf").string()));
    EXPECT_EQ(t->encode("Hello<|endoftext|>", {.parse_special = true}), (Ids{15496, 50256}));
    EXPECT_EQ(t->decode(Ids{15496, 50256}), "Hello");
}

TEST(TokenizerConformance, Phi3SpmCases) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const fs::path phi3 = dir / "tokenizer/more/ggml-vocab-phi-3.gguf";
    if (!fs::exists(phi3)) GTEST_SKIP() << "no " << phi3;
    check_cases(phi3);
}

// Phi-3's chat prompt as llama.cpp's llama_tokenize gives it (parse_special):
// no "\n" after <|system|>, <|end|>, <|user|>, and "You" a word of its own.
TEST(TokenizerConformance, Phi3ChatPrompt) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const fs::path phi3 = dir / "tokenizer/more/ggml-vocab-phi-3.gguf";
    if (!fs::exists(phi3)) GTEST_SKIP() << "no " << phi3;
    const auto t = Tokenizer::from_gguf(gguf::File::open(phi3.string()));
    EXPECT_EQ(t->encode("<|system|>\nYou are terse.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>", {.parse_special = true}),
              (Ids{1, 32006, 887, 526, 1935, 344, 29889, 32007, 32010, 6324, 32007, 32001}));
}

// Neither file has tokenizer.ggml.add_bos_token: Llama-3's vocabulary adds
// <|begin_of_text|> (128000), Qwen2's adds no <|endoftext|> (151643).
TEST(TokenizerConformance, BpeBosDefaults) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const fs::path llama3 = dir / "tokenizer/more/ggml-vocab-llama-bpe.gguf";
    const fs::path qwen2 = dir / "tokenizer/more/ggml-vocab-qwen2.gguf";
    if (!fs::exists(llama3) || !fs::exists(qwen2)) GTEST_SKIP() << "no " << llama3 << " or " << qwen2;
    const auto llama3_file = gguf::File::open(llama3.string());
    const auto qwen2_file = gguf::File::open(qwen2.string());
    ASSERT_FALSE(llama3_file.find("tokenizer.ggml.add_bos_token"));
    ASSERT_FALSE(qwen2_file.find("tokenizer.ggml.add_bos_token"));
    EXPECT_EQ(Tokenizer::from_gguf(llama3_file)->encode("Hello").front(), 128000);
    const Ids qwen2_ids = Tokenizer::from_gguf(qwen2_file)->encode("Hello");
    EXPECT_EQ(qwen2_ids, Tokenizer::from_gguf(qwen2_file)->encode("Hello", {.add_special = false}));
    EXPECT_NE(qwen2_ids.front(), 151643);
}

TEST(TokenizerConformance, GoldenPrompts) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const std::pair<const char*, const char*> goldens[] = {
        {"golden/stories260K-F32.json", "models/stories260K-F32.gguf"},
        {"golden/tiny-gqa-F32-kvf32.json", "models/tiny-gqa-F32.gguf"},
    };
    for (const auto& [golden, model] : goldens) {
        const auto tokenizer = Tokenizer::from_gguf(gguf::File::open((dir / model).string()));
        const auto j = nlohmann::json::parse(read_file(dir / golden));
        for (const auto& p : j["prompts"]) {
            const auto text = p["prompt"].get<std::string>();
            EXPECT_EQ(tokenizer->encode(text), p["tokens"].get<Ids>()) << golden << ": \"" << text << "\"";
            EXPECT_EQ(tokenizer->decode(p["tokens"].get<Ids>()), text);
        }
    }
}

// The greedy_text of a golden is the concatenation of the plain pieces (no space stripping).
TEST(TokenizerConformance, GreedyTextIsTheConcatenatedPieces) {
    TESSERA_REQUIRE_CONFORMANCE(dir);
    const auto tokenizer = Tokenizer::from_gguf(gguf::File::open((dir / "models/stories260K-F32.gguf").string()));
    const auto j = nlohmann::json::parse(read_file(dir / "golden/stories260K-F32.json"));
    for (const auto& p : j["prompts"]) {
        std::string text;
        for (const TokenId id : p["greedy"].get<Ids>()) text += tokenizer->piece(id);
        EXPECT_EQ(text, p["greedy_text"].get<std::string>());
    }
}

}  // namespace
}  // namespace tessera::tokenizer
