// A conversation with a model through its chat template: each turn renders
// the whole conversation, but the Generator evaluates only what its cache
// does not hold yet. When the conversation no longer leaves room for a reply,
// the oldest exchanges are dropped (the system prompt stays), with a note on
// stderr, as llama.cpp's chat does.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/chat_template.hpp"
#include "tools/generator.hpp"

namespace tessera::cli {

class Chat {
public:
    // max_reply: tokens a reply may take at most (< 0: until EOS or a full context).
    Chat(Generator& generator, const tokenizer::Tokenizer& tokenizer, const ChatTemplate& tmpl, ChatOptions options,
         const std::string& system_prompt, int max_reply);

    // Sends `message` and streams the reply to stdout, ending it with a
    // newline; prompt and generation figures go to stderr. Returns false,
    // with the reason on stderr and nothing sent, when the message does not
    // fit the context even alone.
    bool turn(const std::string& message, const std::function<bool()>& interrupted);

private:
    std::vector<int32_t> render() const;
    // The conversation's tokens once they leave room for a reply; empty when
    // even the last message alone does not fit.
    std::vector<int32_t> fit();

    Generator& generator_;
    const tokenizer::Tokenizer& tokenizer_;
    const ChatTemplate& template_;
    ChatOptions options_;
    int max_reply_;
    std::vector<ChatMessage> messages_;
};

}  // namespace tessera::cli
