#include "tools/serve/end_tokens.hpp"

namespace tessera::serve {
namespace {

constexpr const char* kEndOfTurnTexts[] = {"<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>",
                                           "<|endoftext|>", "</s>"};

}  // namespace

std::unordered_set<int32_t> end_tokens(const tokenizer::Tokenizer& tokenizer) {
    const tokenizer::Vocab& vocab = tokenizer.vocab();
    std::unordered_set<int32_t> ids;
    if (vocab.data().eos_id != tokenizer::kNoToken) ids.insert(vocab.data().eos_id);
    for (const char* text : kEndOfTurnTexts)
        if (const auto id = vocab.find(text); id && vocab.type(*id) == tokenizer::TokenType::control) ids.insert(*id);
    return ids;
}

}  // namespace tessera::serve
