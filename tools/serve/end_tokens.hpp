// The tokens at which a generation ends as it does at EOS: EOS itself and the
// end-of-turn tokens of the chat families models/chat_template.hpp renders,
// where the vocabulary has them as control tokens.
#pragma once

#include <cstdint>
#include <unordered_set>

#include "models/tokenizer/tokenizer.hpp"

namespace tessera::serve {

std::unordered_set<int32_t> end_tokens(const tokenizer::Tokenizer& tokenizer);

}  // namespace tessera::serve
