// Chat prompt formats. A model's tokenizer.chat_template is a Jinja program;
// rather than interpret Jinja, the family is recognized by its distinctive
// markers and rendered by hand, exactly as the published templates render it.
// Rendered text contains special-token texts (<s>, <|im_start|>, ...): tokenize
// it with parse_special, and without another BOS where it already starts with one.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tessera::gguf {
class File;
}

namespace tessera {

struct ChatMessage {
    std::string role;  // "system", "user" or "assistant"
    std::string content;
};

enum class ChatFamily {
    zephyr,  // <|user|>\n...</s>\n (Zephyr, TinyLlama chat)
    llama2,  // <s>[INST] <<SYS>>\n...\n<</SYS>>\n\n... [/INST] ... </s>
    llama3,  // <|start_header_id|>user<|end_header_id|>\n\n...<|eot_id|>
    chatml,  // <|im_start|>user\n...<|im_end|>\n
    qwen3,   // ChatML, with Qwen3's <think> blocks and its enable_thinking switch
    gemma,   // <bos><start_of_turn>user\n...<end_of_turn>\n (Gemma 2 and 3; the assistant is "model")
    phi3,    // <|user|>\n...<|end|>\n (Phi-3, Phi-3.5)
    plain,   // "role: content" lines, for templates not recognized
};

struct ChatOptions {
    // Append the opening of an assistant turn (Llama-2's format has none: the prompt ends with [/INST]).
    bool add_generation_prompt = true;
    // Qwen3's enable_thinking: false appends an empty <think> block to the
    // generation prompt, so that the model answers without reasoning first.
    // The other families have no such switch (see has_thinking_switch).
    bool enable_thinking = true;
};

class ChatTemplate {
public:
    // The family whose markers `jinja` contains; plain, with a warning(), when none matches.
    static ChatTemplate detect(std::string_view jinja);
    // "zephyr", "llama2", "llama3", "chatml", "qwen3", "gemma", "phi3" or "plain";
    // tessera::Error listing them otherwise.
    static ChatTemplate named(std::string_view name);
    // `name` when not empty, else detected from the file's tokenizer.chat_template
    // (plain, with a warning(), when the file has none).
    static ChatTemplate for_model(const gguf::File& file, std::string_view name = "");

    ChatFamily family() const { return family_; }
    std::string_view name() const;
    // Why the plain format was chosen; empty when a family was found or named.
    const std::string& warning() const { return warning_; }
    // Whether ChatOptions::enable_thinking changes what apply renders (Qwen3 only).
    bool has_thinking_switch() const { return family_ == ChatFamily::qwen3; }

    // The prompt for `messages`. Throws tessera::Error where the format cannot
    // express the conversation or uses a feature tessera does not render (Qwen3's tool messages).
    std::string apply(std::span<const ChatMessage> messages, const ChatOptions& options = {}) const;

private:
    ChatTemplate(ChatFamily family, std::string warning) : family_(family), warning_(std::move(warning)) {}

    ChatFamily family_;
    std::string warning_;
};

}  // namespace tessera
