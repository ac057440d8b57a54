#include "models/tokenizer/vocab.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "models/gguf/file.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {
namespace {

constexpr std::string_view kModel = "tokenizer.ggml.model";
constexpr std::string_view kTokens = "tokenizer.ggml.tokens";
constexpr std::string_view kScores = "tokenizer.ggml.scores";
constexpr std::string_view kTypes = "tokenizer.ggml.token_type";
constexpr std::string_view kMerges = "tokenizer.ggml.merges";

std::string where(const gguf::File& file, std::string_view key) {
    return file.name() + ": " + std::string(key);
}

const gguf::Array* optional_array(const gguf::File& file, std::string_view key) {
    return file.find(key) ? &file.get_array(key) : nullptr;
}

std::vector<std::string> string_array(const gguf::File& file, std::string_view key, const gguf::Array& array) {
    std::vector<std::string> out;
    out.reserve(array.items.size());
    for (const auto& item : array.items) {
        const auto* s = item.as_string();
        if (!s) throw Error(where(file, key) + " must be an array of strings");
        out.push_back(*s);
    }
    return out;
}

// A token id key; 0xFFFFFFFF, which some converters write, means none. When
// the key is absent: the fallback if the vocabulary has that id, else none.
TokenId token_id(const gguf::File& file, std::string_view key, TokenId fallback, size_t n_tokens) {
    if (!file.find(key)) return fallback >= 0 && size_t(fallback) < n_tokens ? fallback : kNoToken;
    const uint64_t id = file.get_uint(key);
    if (id == 0xFFFFFFFFu) return kNoToken;
    // Checked here, before the narrowing to TokenId could turn 2^32 + 1 into 1.
    if (id >= n_tokens)
        throw Error(where(file, key) + " = " + std::to_string(id) + " is not a token id (the vocabulary has " +
                    std::to_string(n_tokens) + " tokens)");
    return TokenId(id);
}

// Whether encoding adds BOS when tokenizer.ggml.add_bos_token is absent, as
// llama.cpp's vocabulary loader decides: SentencePiece vocabularies do;
// byte-level BPE ones only with the pre-tokenizers listed here (Llama-3's
// under its names and aliases, Mistral's Tekken, Chameleon), not with gpt-2,
// qwen2 or any other. Only some of these names have a tessera pre-tokenizer.
bool default_add_bos(bool spm, std::string_view pre) {
    if (spm) return true;
    constexpr std::string_view adds_bos[] = {"llama-bpe", "llama3", "llama-v3", "falcon3", "falcon-h1", "pixtral",
                                             "midm-2.0", "lfm2", "jina-v5-nano", "tekken", "chameleon"};
    return std::ranges::find(adds_bos, pre) != std::end(adds_bos);
}

// llama.cpp's rule for Phi-3 vocabularies, recognized by general.name: their
// tokenizer.json marks the special tokens rstrip (the whitespace after them is
// no text: "<|user|>\nHi" encodes as <|user|> ▁Hi), all but <unk>, <s> and
// <|endoftext|>. Special here means what encode() can match: control,
// user-defined and unknown tokens.
std::vector<TokenId> phi3_rstrip_ids(const gguf::File& file, const VocabData& d) {
    std::string name = file.get_string("general.name", "");
    std::ranges::transform(name, name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (name.find("phi-3") == std::string::npos && name.find("phi3") == std::string::npos) return {};
    std::vector<TokenId> ids;
    for (size_t i = 0; i < d.tokens.size(); ++i) {
        const TokenType t = d.types.empty() ? TokenType::normal : d.types[i];
        const bool special = t == TokenType::control || t == TokenType::user_defined || t == TokenType::unknown;
        const std::string& text = d.tokens[i];
        if (special && text != "<unk>" && text != "<s>" && text != "<|endoftext|>") ids.push_back(TokenId(i));
    }
    return ids;
}

void check_length(size_t n, size_t n_tokens, std::string_view key) {
    if (n != n_tokens)
        throw Error(std::string(key) + " has " + std::to_string(n) + " entries but " + std::string(kTokens) +
                    " has " + std::to_string(n_tokens));
}

void check_id(TokenId id, size_t n_tokens, std::string_view what) {
    if (id != kNoToken && (id < 0 || size_t(id) >= n_tokens))
        throw Error(std::string(what) + " " + std::to_string(id) + " is not a token id (the vocabulary has " +
                    std::to_string(n_tokens) + " tokens)");
}

}  // namespace

Vocab::Vocab(VocabData data) : data_(std::move(data)) {
    const size_t n = data_.tokens.size();
    if (n == 0) throw Error(std::string(kTokens) + " is empty");
    if (data_.scores.empty()) data_.scores.assign(n, 0.0f);
    if (data_.types.empty()) data_.types.assign(n, TokenType::normal);
    check_length(data_.scores.size(), n, kScores);
    check_length(data_.types.size(), n, kTypes);
    check_id(data_.bos_id, n, "tokenizer.ggml.bos_token_id");
    check_id(data_.eos_id, n, "tokenizer.ggml.eos_token_id");
    check_id(data_.unk_id, n, "tokenizer.ggml.unknown_token_id");
    for (const TokenId id : data_.rstrip_ids) check_id(id, n, "rstrip token");
    // Some converters mark every token normal (GPT-2's <|endoftext|> included);
    // BOS/EOS must still be control tokens, or they would decode as text.
    for (const TokenId id : {data_.bos_id, data_.eos_id})
        if (id != kNoToken && data_.types[size_t(id)] == TokenType::normal) data_.types[size_t(id)] = TokenType::control;
    ids_.reserve(n);
    // Duplicate texts keep their first id.
    for (size_t i = 0; i < n; ++i) ids_.emplace(data_.tokens[i], TokenId(i));
}

std::optional<TokenId> Vocab::find(std::string_view text) const {
    const auto it = ids_.find(text);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
}

Vocab Vocab::from_gguf(const gguf::File& file) {
    if (!file.find(kModel)) throw Error(file.name() + ": no tokenizer (metadata key " + std::string(kModel) + " not found)");
    VocabData d;
    d.model = file.get_string(kModel);
    const bool spm = d.model == "llama";
    if (!spm && d.model != "gpt2")
        throw Error(where(file, kModel) + " is \"" + d.model + "\"; supported: \"llama\" (SentencePiece), \"gpt2\" (BPE)");
    d.pre = file.get_string("tokenizer.ggml.pre", "");
    d.tokens = string_array(file, kTokens, file.get_array(kTokens));
    const size_t n = d.tokens.size();

    if (const auto* scores = optional_array(file, kScores)) {
        check_length(scores->items.size(), n, where(file, kScores));
        for (const auto& item : scores->items) {
            const auto v = item.as_double();
            if (!v) throw Error(where(file, kScores) + " must be an array of numbers");
            d.scores.push_back(float(*v));
        }
    }
    if (const auto* types = optional_array(file, kTypes)) {
        check_length(types->items.size(), n, where(file, kTypes));
        for (const auto& item : types->items) {
            const auto v = item.as_int();
            if (!v) throw Error(where(file, kTypes) + " must be an array of integers");
            d.types.push_back(TokenType(*v));
        }
    }
    if (const auto* merges = optional_array(file, kMerges)) d.merges = string_array(file, kMerges, *merges);
    if (!spm && d.merges.empty()) throw Error(where(file, kMerges) + " is missing or empty (required by BPE)");

    // SentencePiece Llama vocabularies number <unk>, <s>, </s> as 0, 1, 2 when the keys are absent.
    d.bos_id = token_id(file, "tokenizer.ggml.bos_token_id", spm ? 1 : kNoToken, n);
    d.eos_id = token_id(file, "tokenizer.ggml.eos_token_id", spm ? 2 : kNoToken, n);
    d.unk_id = token_id(file, "tokenizer.ggml.unknown_token_id", spm ? 0 : kNoToken, n);
    d.add_bos = file.get_bool("tokenizer.ggml.add_bos_token", default_add_bos(spm, d.pre));
    d.add_eos = file.get_bool("tokenizer.ggml.add_eos_token", false);
    d.add_space_prefix = file.get_bool("tokenizer.ggml.add_space_prefix", spm);
    d.rstrip_ids = phi3_rstrip_ids(file, d);
    try {
        return Vocab(std::move(d));
    } catch (const Error& e) {
        throw Error(file.name() + ": " + e.what());
    }
}

}  // namespace tessera::tokenizer
