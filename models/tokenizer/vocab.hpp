// A tokenizer vocabulary as GGUF stores it under tokenizer.ggml.*: token texts,
// SentencePiece scores, token types, BPE merges, special token ids and the
// flags that say which of them encoding adds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::gguf {
class File;
}

namespace tessera::tokenizer {

using TokenId = int32_t;
inline constexpr TokenId kNoToken = -1;

// Values of tokenizer.ggml.token_type (SentencePiece's piece types).
enum class TokenType : int32_t {
    undefined = 0,
    normal = 1,
    unknown = 2,
    control = 3,
    user_defined = 4,
    unused = 5,
    byte = 6,
};

struct VocabData {
    std::string model;  // tokenizer.ggml.model: "llama" (SentencePiece) or "gpt2" (byte-level BPE)
    std::string pre;    // tokenizer.ggml.pre, "" when absent
    std::vector<std::string> tokens;
    std::vector<float> scores;      // one per token (zeros when the file has none)
    std::vector<TokenType> types;   // one per token (normal when the file has none)
    std::vector<std::string> merges;  // "left right", highest priority first
    TokenId bos_id = kNoToken;
    TokenId eos_id = kNoToken;
    TokenId unk_id = kNoToken;
    bool add_bos = false;
    bool add_eos = false;
    bool add_space_prefix = false;
    // Special tokens that swallow the whitespace after them when encode() matches
    // them (Hugging Face's rstrip); from_gguf fills it for Phi-3 vocabularies only.
    std::vector<TokenId> rstrip_ids;
};

class Vocab {
public:
    // Checks the data (array lengths, ids in range) and indexes the token texts.
    explicit Vocab(VocabData data);

    // Reads tokenizer.ggml.* from a GGUF file. Throws tessera::Error naming the
    // key when one is missing, of the wrong type, or inconsistent with the others.
    static Vocab from_gguf(const gguf::File& file);

    const VocabData& data() const { return data_; }
    const std::string& model() const { return data_.model; }
    size_t size() const { return data_.tokens.size(); }
    const std::string& text(TokenId id) const { return data_.tokens.at(size_t(id)); }
    float score(TokenId id) const { return data_.scores[size_t(id)]; }
    TokenType type(TokenId id) const { return data_.types[size_t(id)]; }
    std::optional<TokenId> find(std::string_view text) const;

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    VocabData data_;
    std::unordered_map<std::string, TokenId, Hash, std::equal_to<>> ids_;
};

}  // namespace tessera::tokenizer
