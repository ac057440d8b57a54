// A checked Request's prompt as token ids: chat messages rendered with the
// model's chat template, a completion's prompt tokenized as it is; refused
// (400, naming both numbers) when it leaves no room in the context for a
// single generated token.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "models/chat_template.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/api_error.hpp"
#include "tools/serve/request.hpp"

namespace tessera::serve {

using PromptTokens = std::variant<std::vector<int32_t>, ApiError>;

PromptTokens prompt_tokens(const Request& request, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl,
                           int64_t n_ctx);

}  // namespace tessera::serve
