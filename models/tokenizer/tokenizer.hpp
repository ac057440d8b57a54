// The tokenizer interface shared by the SentencePiece-style and byte-level BPE
// tokenizers, and the factory that picks one by tokenizer.ggml.model.
//
// encode() splits the text at special tokens (user-defined tokens always,
// control and unknown tokens only with parse_special; the whitespace after a
// token the vocabulary marks rstrip is dropped), has the concrete tokenizer
// encode each piece of plain text between them, and adds BOS/EOS as the vocabulary asks.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/tokenizer/special_tokens.hpp"
#include "models/tokenizer/vocab.hpp"

namespace tessera::gguf {
class File;
}

namespace tessera::tokenizer {

struct EncodeOptions {
    bool add_special = true;     // BOS / EOS where the vocabulary's add_bos / add_eos ask for them
    bool parse_special = false;  // control and unknown tokens written in the text (e.g. "</s>") become those tokens
};

class Tokenizer {
public:
    virtual ~Tokenizer() = default;
    Tokenizer(const Tokenizer&) = delete;  // the special-token matchers point into vocab_
    Tokenizer& operator=(const Tokenizer&) = delete;

    // "llama" -> SentencePiece-style, "gpt2" -> byte-level BPE.
    static std::unique_ptr<Tokenizer> create(Vocab vocab);
    static std::unique_ptr<Tokenizer> from_gguf(const gguf::File& file);

    const Vocab& vocab() const { return vocab_; }

    std::vector<TokenId> encode(std::string_view text, const EncodeOptions& options = {}) const;

    // The bytes token `id` contributes to decoded text (possibly part of a
    // UTF-8 character, for byte tokens). Control and unknown tokens give ""
    // unless render_special, which gives their text.
    std::string piece(TokenId id, bool render_special = false) const;

    // The pieces concatenated. For SentencePiece vocabularies that add a space
    // prefix, the space that starts the first text piece (after any leading
    // control tokens such as BOS) is removed, so decode(encode(t)) == t.
    std::string decode(std::span<const TokenId> ids, bool render_special = false) const;

    // Whether decode removes the leading space of the first text piece.
    bool strips_leading_space() const { return vocab_.data().add_space_prefix; }

protected:
    explicit Tokenizer(Vocab vocab);

    // Appends the tokens of plain text (no special tokens in it).
    // `starts_segment`: the text begins the input or follows a special token.
    virtual void encode_plain(std::string_view text, bool starts_segment, std::vector<TokenId>& out) const = 0;
    // The bytes of a normal (or user-defined / unused) token.
    virtual std::string text_piece(TokenId id) const = 0;

    Vocab vocab_;

private:
    SpecialTokenMatcher always_special_;  // user-defined tokens
    SpecialTokenMatcher with_special_;    // user-defined, control and unknown tokens
    std::vector<bool> rstrip_;            // by id: VocabData::rstrip_ids
};

}  // namespace tessera::tokenizer
