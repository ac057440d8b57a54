#include "tools/serve/prompt.hpp"

#include <exception>

namespace tessera::serve {

PromptTokens prompt_tokens(const Request& request, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl,
                           int64_t n_ctx) {
    std::vector<int32_t> tokens;
    if (request.endpoint == Endpoint::Chat) {
        std::string text;
        try {
            text = tmpl.apply(request.messages);
        } catch (const std::exception& e) {
            return invalid_field("messages", std::string("the chat template cannot render these messages: ") + e.what());
        }
        // The template writes its own BOS text where the format has one; the tokenizer adds none then.
        const int32_t bos = tokenizer.vocab().data().bos_id;
        const bool has_bos = bos >= 0 && text.starts_with(tokenizer.vocab().text(bos));
        tokens = tokenizer.encode(text, {.add_special = !has_bos, .parse_special = true});
    } else {
        // Text from a client: special-token texts in it stay text.
        tokens = tokenizer.encode(request.prompt, {.add_special = true, .parse_special = false});
    }
    const char* field = request.endpoint == Endpoint::Chat ? "messages" : "prompt";
    if (tokens.empty())
        return invalid_field(field, "the prompt is empty and the model adds no BOS token to generate from");
    if (int64_t(tokens.size()) >= n_ctx)
        return ApiError{.status = 400,
                        .message = "the prompt takes " + std::to_string(tokens.size()) +
                                   " tokens, but the context holds " + std::to_string(n_ctx) +
                                   " (the prompt must leave room for at least one generated token)",
                        .code = "context_length_exceeded",
                        .param = field};
    return tokens;
}

}  // namespace tessera::serve
