#include "models/synthetic_vocab.hpp"

#include <cstdio>
#include <string>
#include <vector>

#include "models/tokenizer/byte_unicode.hpp"

namespace tessera::model {
namespace {

using gguf::Array, gguf::Value, gguf::ValueType;

// tokenizer.ggml.token_type values.
constexpr int32_t kNormal = 1, kUnknown = 2, kControl = 3, kByte = 6;

// Bijective base 26: 0 -> "a", 25 -> "z", 26 -> "aa", ...
std::string letters(uint64_t i) {
    std::string s;
    for (++i; i > 0; i = (i - 1) / 26) s.insert(s.begin(), char('a' + (i - 1) % 26));
    return s;
}

struct TokenList {
    Array tokens{ValueType::STRING, {}}, types{ValueType::INT32, {}};

    size_t size() const { return tokens.items.size(); }
    void add(std::string text, int32_t type) {
        tokens.items.push_back(Value{std::move(text)});
        types.items.push_back(Value{type});
    }
};

}  // namespace

void add_spm_vocabulary(gguf::Writer& w, int64_t n_vocab, SpmSpecials specials) {
    TokenList list;
    Array scores{ValueType::FLOAT32, {}};
    auto add = [&](std::string piece, float score, int32_t type) {
        list.add(std::move(piece), type);
        scores.items.push_back(Value{score});
    };
    const bool gemma = specials == SpmSpecials::Gemma;
    if (gemma) {
        add("<pad>", 0.0f, kControl);
        add("<eos>", 0.0f, kControl);
        add("<bos>", 0.0f, kControl);
        add("<unk>", 0.0f, kUnknown);
    } else {
        add("<unk>", 0.0f, kUnknown);
        add("<s>", 0.0f, kControl);
        add("</s>", 0.0f, kControl);
    }
    for (int b = 0; b < 256; ++b) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", b);
        add(hex, 0.0f, kByte);
    }
    const std::vector<std::string> chat_tokens =
        specials == SpmSpecials::Phi3
            ? std::vector<std::string>{"<|endoftext|>", "<|assistant|>", "<|system|>", "<|end|>", "<|user|>"}
            : std::vector<std::string>{};
    // Every other piece starts a word (the U+2581 mark).
    for (int64_t j = 0; int64_t(list.size() + chat_tokens.size()) < n_vocab; ++j)
        add((j % 2 == 0 ? "\xE2\x96\x81" : "") + letters(uint64_t(j / 2)), -float(j), kNormal);
    const uint32_t end_of_text = uint32_t(list.size());
    for (const std::string& control : chat_tokens) add(control, 0.0f, kControl);
    w.add_kv("tokenizer.ggml.model", Value{std::string("llama")});
    w.add_kv("tokenizer.ggml.pre", Value{std::string("default")});
    w.add_kv("tokenizer.ggml.tokens", Value{std::move(list.tokens)});
    w.add_kv("tokenizer.ggml.scores", Value{std::move(scores)});
    w.add_kv("tokenizer.ggml.token_type", Value{std::move(list.types)});
    w.add_kv("tokenizer.ggml.bos_token_id", Value{uint32_t{gemma ? 2u : 1u}});
    const uint32_t eos = gemma ? 1 : chat_tokens.empty() ? 2 : end_of_text;
    w.add_kv("tokenizer.ggml.eos_token_id", Value{eos});
    w.add_kv("tokenizer.ggml.unknown_token_id", Value{uint32_t{gemma ? 3u : 0u}});
    if (gemma) w.add_kv("tokenizer.ggml.padding_token_id", Value{uint32_t{0}});
    w.add_kv("tokenizer.ggml.add_bos_token", Value{true});
    w.add_kv("tokenizer.ggml.add_eos_token", Value{false});
    if (gemma) w.add_kv("tokenizer.ggml.add_space_prefix", Value{false});
}

void add_bpe_vocabulary(gguf::Writer& w, int64_t n_vocab, std::string_view pre) {
    constexpr int kControlTokens = 3;
    TokenList list;
    Array merges{ValueType::STRING, {}};
    for (int b = 0; b < 256; ++b) list.add(tokenizer::byte_to_unicode(uint8_t(b)), kNormal);
    // Words "a".."z", "aa", ...: each one with a leading space ("Ġ") and, from
    // two letters on, without; each is the merge of its prefix and last letter,
    // and the prefix came before it.
    const std::string space = tokenizer::byte_to_unicode(' ');
    auto add_word = [&](const std::string& prefix, char last) {
        if (int64_t(list.size()) + kControlTokens >= n_vocab) return;
        merges.items.push_back(Value{prefix + " " + last});
        list.add(prefix + last, kNormal);
    };
    for (uint64_t j = 0; int64_t(list.size()) + kControlTokens < n_vocab; ++j) {
        const std::string word = letters(j);
        const std::string prefix = word.substr(0, word.size() - 1);
        if (!prefix.empty()) add_word(prefix, word.back());
        add_word(space + prefix, word.back());
    }
    const uint32_t end_of_text = uint32_t(list.size());
    for (const char* control : {"<|endoftext|>", "<|im_start|>", "<|im_end|>"}) list.add(control, kControl);
    w.add_kv("tokenizer.ggml.model", Value{std::string("gpt2")});
    w.add_kv("tokenizer.ggml.pre", Value{std::string(pre)});
    w.add_kv("tokenizer.ggml.tokens", Value{std::move(list.tokens)});
    w.add_kv("tokenizer.ggml.token_type", Value{std::move(list.types)});
    w.add_kv("tokenizer.ggml.merges", Value{std::move(merges)});
    w.add_kv("tokenizer.ggml.bos_token_id", Value{end_of_text});
    w.add_kv("tokenizer.ggml.eos_token_id", Value{end_of_text});
    w.add_kv("tokenizer.ggml.add_bos_token", Value{false});
}

}  // namespace tessera::model
