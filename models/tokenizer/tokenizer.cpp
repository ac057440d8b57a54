#include "models/tokenizer/tokenizer.hpp"

#include "models/gguf/file.hpp"
#include "models/tokenizer/bpe_tokenizer.hpp"
#include "models/tokenizer/spm_tokenizer.hpp"
#include "models/tokenizer/stream_decoder.hpp"
#include "support/error.hpp"

namespace tessera::tokenizer {

Tokenizer::Tokenizer(Vocab vocab)
    : vocab_(std::move(vocab)),
      always_special_(vocab_, {TokenType::user_defined}),
      // As llama.cpp does, parse_special matches unknown tokens too: "<unk>" in the text is <unk>.
      with_special_(vocab_, {TokenType::user_defined, TokenType::control, TokenType::unknown}),
      rstrip_(vocab_.size(), false) {
    for (const TokenId id : vocab_.data().rstrip_ids) rstrip_[size_t(id)] = true;
}

std::unique_ptr<Tokenizer> Tokenizer::create(Vocab vocab) {
    if (vocab.model() == "llama") return std::make_unique<SpmTokenizer>(std::move(vocab));
    if (vocab.model() == "gpt2") return std::make_unique<BpeTokenizer>(std::move(vocab));
    throw Error("tokenizer.ggml.model \"" + vocab.model() + "\" is not supported (\"llama\" or \"gpt2\")");
}

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const gguf::File& file) {
    Vocab vocab = Vocab::from_gguf(file);  // its errors name the file already
    try {
        return create(std::move(vocab));
    } catch (const Error& e) {
        throw Error(file.name() + ": " + e.what());
    }
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, const EncodeOptions& options) const {
    const VocabData& d = vocab_.data();
    std::vector<TokenId> out;
    if (options.add_special && d.add_bos && d.bos_id != kNoToken) out.push_back(d.bos_id);
    const SpecialTokenMatcher& specials = options.parse_special ? with_special_ : always_special_;
    bool starts_segment = true;
    for (size_t pos = 0; pos < text.size();) {
        const auto match = specials.find(text, pos);
        if (match.pos > pos) encode_plain(text.substr(pos, match.pos - pos), starts_segment, out);
        if (match.id == kNoToken) break;
        out.push_back(match.id);
        starts_segment = true;
        pos = match.pos + match.length;
        // C's isspace in the "C" locale, as llama.cpp tests it.
        if (rstrip_[size_t(match.id)])
            while (pos < text.size() && std::string_view(" \t\n\v\f\r").find(text[pos]) != std::string_view::npos) ++pos;
    }
    if (options.add_special && d.add_eos && d.eos_id != kNoToken) out.push_back(d.eos_id);
    return out;
}

std::string Tokenizer::piece(TokenId id, bool render_special) const {
    if (id < 0 || size_t(id) >= vocab_.size())
        throw Error("token id " + std::to_string(id) + " is out of range (the vocabulary has " +
                    std::to_string(vocab_.size()) + " tokens)");
    switch (vocab_.type(id)) {
        case TokenType::control:
        case TokenType::unknown: return render_special ? vocab_.text(id) : std::string();
        case TokenType::user_defined: return vocab_.text(id);
        default: return text_piece(id);
    }
}

std::string Tokenizer::decode(std::span<const TokenId> ids, bool render_special) const {
    StreamDecoder decoder(*this, render_special);
    std::string out;
    for (const TokenId id : ids) out += decoder.push(id);
    return out + decoder.finish();
}

}  // namespace tessera::tokenizer
