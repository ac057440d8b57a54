#include "models/chat_template.hpp"

#include "models/gguf/file.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

constexpr std::string_view kTemplateKey = "tokenizer.chat_template";

struct FamilyName {
    ChatFamily family;
    std::string_view name;
};
constexpr FamilyName kNames[] = {
    {ChatFamily::zephyr, "zephyr"}, {ChatFamily::llama2, "llama2"}, {ChatFamily::llama3, "llama3"},
    {ChatFamily::chatml, "chatml"}, {ChatFamily::plain, "plain"},
};

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Python's str.strip() / Jinja's trim: surrounding whitespace removed.
std::string_view trimmed(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\f\v";
    const size_t first = s.find_first_not_of(ws);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

std::string zephyr(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out;
    for (const auto& m : messages) out += "<|" + m.role + "|>\n" + m.content + "</s>\n";
    if (add_generation_prompt) out += "<|assistant|>\n";
    return out;
}

// Meta's Llama-2 chat format: the system prompt goes inside the first [INST],
// every user turn opens with BOS, every assistant turn closes with EOS.
std::string llama2(std::span<const ChatMessage> messages) {
    std::string system;
    if (!messages.empty() && messages.front().role == "system") {
        system = "<<SYS>>\n" + messages.front().content + "\n<</SYS>>\n\n";
        messages = messages.subspan(1);
    }
    std::string out;
    for (size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        const std::string_view expected = i % 2 == 0 ? "user" : "assistant";
        if (m.role != expected)
            throw Error("chat template llama2: message " + std::to_string(i + 1) + " has role \"" + m.role +
                        "\"; after an optional first system message, roles must alternate user/assistant");
        const std::string content = (i == 0 ? system : "") + m.content;
        if (m.role == "user") out += "<s>[INST] " + std::string(trimmed(content)) + " [/INST]";
        else out += " " + std::string(trimmed(content)) + " </s>";
    }
    return out;
}

std::string llama3(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out = "<|begin_of_text|>";
    for (const auto& m : messages)
        out += "<|start_header_id|>" + m.role + "<|end_header_id|>\n\n" + std::string(trimmed(m.content)) + "<|eot_id|>";
    if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
    return out;
}

std::string chatml(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out;
    for (const auto& m : messages) out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
    if (add_generation_prompt) out += "<|im_start|>assistant\n";
    return out;
}

std::string plain(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out;
    for (const auto& m : messages) out += m.role + ": " + m.content + "\n";
    if (add_generation_prompt) out += "assistant:";
    return out;
}

}  // namespace

ChatTemplate ChatTemplate::detect(std::string_view jinja) {
    if (contains(jinja, "<|im_start|>")) return {ChatFamily::chatml, ""};
    if (contains(jinja, "<|start_header_id|>")) return {ChatFamily::llama3, ""};
    if (contains(jinja, "[INST]")) return {ChatFamily::llama2, ""};
    if (contains(jinja, "<|user|>") && (contains(jinja, "</s>") || contains(jinja, "eos_token")))
        return {ChatFamily::zephyr, ""};
    return {ChatFamily::plain, "chat template not recognized (none of the zephyr, llama2, llama3, chatml markers); "
                               "using plain \"role: content\" lines"};
}

ChatTemplate ChatTemplate::named(std::string_view name) {
    std::string known;
    for (const auto& n : kNames) {
        if (n.name == name) return {n.family, ""};
        known += (known.empty() ? "" : ", ") + std::string(n.name);
    }
    throw Error("unknown chat template \"" + std::string(name) + "\" (known: " + known + ")");
}

ChatTemplate ChatTemplate::for_model(const gguf::File& file, std::string_view name) {
    if (!name.empty()) return named(name);
    if (!file.find(kTemplateKey))
        return {ChatFamily::plain, file.name() + " has no " + std::string(kTemplateKey) +
                                       "; using plain \"role: content\" lines"};
    return detect(file.get_string(kTemplateKey));
}

std::string_view ChatTemplate::name() const {
    for (const auto& n : kNames)
        if (n.family == family_) return n.name;
    return "plain";
}

std::string ChatTemplate::apply(std::span<const ChatMessage> messages, bool add_generation_prompt) const {
    switch (family_) {
        case ChatFamily::zephyr: return zephyr(messages, add_generation_prompt);
        case ChatFamily::llama2: return llama2(messages);
        case ChatFamily::llama3: return llama3(messages, add_generation_prompt);
        case ChatFamily::chatml: return chatml(messages, add_generation_prompt);
        case ChatFamily::plain: break;
    }
    return plain(messages, add_generation_prompt);
}

}  // namespace tessera
