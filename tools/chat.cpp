#include "tools/chat.hpp"

#include <algorithm>
#include <cstdio>

#include "tools/turn_report.hpp"

namespace tessera::cli {

Chat::Chat(Generator& generator, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl, ChatOptions options,
           const std::string& system_prompt, int max_reply)
    : generator_(generator), tokenizer_(tokenizer), template_(tmpl), options_(options), max_reply_(max_reply) {
    if (!system_prompt.empty()) messages_.push_back({"system", system_prompt});
}

// The template's own BOS text replaces the one the tokenizer would add.
std::vector<int32_t> Chat::render() const {
    const std::string text = template_.apply(messages_, options_);
    const int32_t bos = tokenizer_.vocab().data().bos_id;
    const bool has_bos = bos >= 0 && text.starts_with(tokenizer_.vocab().text(bos));
    return tokenizer_.encode(text, {.add_special = !has_bos, .parse_special = true});
}

std::vector<int32_t> Chat::fit() {
    const int64_t n_ctx = generator_.n_ctx();
    // Room kept for the reply: what it may take, at most half the context.
    const int64_t room = std::min<int64_t>(max_reply_ < 0 ? n_ctx : max_reply_, n_ctx / 2);
    const size_t first = !messages_.empty() && messages_.front().role == "system" ? 1 : 0;
    size_t dropped = 0;
    std::vector<int32_t> tokens = render();
    // Exchanges are (user, assistant) pairs; the last message is the one being sent.
    while (int64_t(tokens.size()) + room > n_ctx && messages_.size() >= first + 3) {
        messages_.erase(messages_.begin() + std::ptrdiff_t(first), messages_.begin() + std::ptrdiff_t(first + 2));
        ++dropped;
        tokens = render();
    }
    if (dropped > 0)
        std::fprintf(stderr, "note: the context of %lld tokens is full: dropped the oldest %zu exchange%s%s\n",
                     static_cast<long long>(n_ctx), dropped, dropped > 1 ? "s" : "",
                     first > 0 ? " (the system prompt stays)" : "");
    if (int64_t(tokens.size()) >= n_ctx) {
        std::fprintf(stderr, "error: this message takes %zu tokens with the chat template, more than the context of "
                             "%lld tokens holds (raise --ctx); not sent\n",
                     tokens.size(), static_cast<long long>(n_ctx));
        return {};
    }
    return tokens;
}

bool Chat::turn(const std::string& message, const std::function<bool()>& interrupted) {
    messages_.push_back({"user", message});
    const std::vector<int32_t> tokens = fit();
    if (tokens.empty()) {
        messages_.pop_back();
        return false;
    }
    TurnReport report;
    report.prompt(tokens.size(), generator_.feed(tokens));
    const Generator::Reply reply =
        generator_.reply({.max_tokens = max_reply_, .out = stdout, .interrupted = interrupted});
    std::fputs("\n", stdout);
    std::fflush(stdout);
    report.reply(reply, generator_.n_ctx());
    messages_.push_back({"assistant", reply.text});
    return true;
}

}  // namespace tessera::cli
