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
    {ChatFamily::chatml, "chatml"}, {ChatFamily::qwen3, "qwen3"},   {ChatFamily::gemma, "gemma"},
    {ChatFamily::phi3, "phi3"},     {ChatFamily::plain, "plain"},
};

// "zephyr, llama2, ...": the names named() knows, plain last unless left out.
std::string known_names(bool with_plain = true) {
    std::string out;
    for (const auto& n : kNames)
        if (with_plain || n.family != ChatFamily::plain) out += (out.empty() ? "" : ", ") + std::string(n.name);
    return out;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Python's str.strip() / Jinja's trim: surrounding whitespace removed.
std::string_view trimmed(std::string_view s) {
    constexpr std::string_view ws = " \t\n\r\f\v";
    const size_t first = s.find_first_not_of(ws);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

// Python's str.lstrip(c) / str.rstrip(c): that one character removed from the start / end.
std::string_view lstripped(std::string_view s, char c) {
    const size_t first = s.find_first_not_of(c);
    return first == std::string_view::npos ? std::string_view() : s.substr(first);
}
std::string_view rstripped(std::string_view s, char c) {
    const size_t last = s.find_last_not_of(c);
    return last == std::string_view::npos ? std::string_view() : s.substr(0, last + 1);
}

std::string zephyr(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out;
    for (const auto& m : messages) out += "<|" + m.role + "|>\n" + m.content + "</s>\n";
    if (add_generation_prompt) out += "<|assistant|>\n";
    return out;
}

// For the formats whose templates raise an error otherwise: after an optional
// first system message (already taken off `turns`; `skipped` says whether there
// was one), the roles alternate user, assistant, user, ...
void require_alternating(std::string_view family, std::span<const ChatMessage> turns, bool skipped) {
    for (size_t i = 0; i < turns.size(); ++i) {
        const std::string_view expected = i % 2 == 0 ? "user" : "assistant";
        if (turns[i].role != expected)
            throw Error("chat template " + std::string(family) + ": message " + std::to_string(i + 1 + skipped) +
                        " has role \"" + turns[i].role +
                        "\"; after an optional first system message, roles must alternate user/assistant");
    }
}

// Meta's Llama-2 chat format: the system prompt goes inside the first [INST],
// every user turn opens with BOS, every assistant turn closes with EOS.
std::string llama2(std::span<const ChatMessage> messages) {
    std::string system;
    const bool has_system = !messages.empty() && messages.front().role == "system";
    if (has_system) {
        system = "<<SYS>>\n" + messages.front().content + "\n<</SYS>>\n\n";
        messages = messages.subspan(1);
    }
    require_alternating("llama2", messages, has_system);
    std::string out;
    for (size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
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

// An assistant message as Qwen3's template splits it, in Python string terms:
// reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n'),
// answer = content.split('</think>')[-1].lstrip('\n'); without '</think>', all of it is the answer.
struct ThinkingReply {
    std::string_view reasoning, answer;
};
ThinkingReply split_thinking(std::string_view content) {
    constexpr std::string_view open = "<think>", close = "</think>";
    const size_t first_close = content.find(close);
    if (first_close == std::string_view::npos) return {{}, content};
    std::string_view reasoning = rstripped(content.substr(0, first_close), '\n');
    if (const size_t last_open = reasoning.rfind(open); last_open != std::string_view::npos)
        reasoning = reasoning.substr(last_open + open.size());
    return {lstripped(reasoning, '\n'), lstripped(content.substr(content.rfind(close) + close.size()), '\n')};
}

// Qwen3's hybrid-thinking template without tools: ChatML, where an assistant
// reply after the last user query shows its reasoning in a <think> block (the
// final message always, with an empty block when it has no reasoning), and
// every earlier reply keeps only its answer.
std::string qwen3(std::span<const ChatMessage> messages, const ChatOptions& options) {
    if (messages.empty()) throw Error("chat template qwen3: no messages (the template reads the first one)");
    for (size_t i = 0; i < messages.size(); ++i) {
        const std::string& role = messages[i].role;
        if (role != "system" && role != "user" && role != "assistant")
            throw Error("chat template qwen3: message " + std::to_string(i + 1) + " has role \"" + role +
                        "\"; tessera renders system, user and assistant messages only (no tool calls or results)");
    }
    // The last user query: the last user message that is not a tool result in
    // the template's form; the last message's index when there is none.
    size_t last_query = messages.size() - 1;
    for (size_t i = messages.size(); i-- > 0;) {
        const std::string& content = messages[i].content;
        const bool tool_result = content.starts_with("<tool_response>") && content.ends_with("</tool_response>");
        if (messages[i].role == "user" && !tool_result) {
            last_query = i;
            break;
        }
    }
    std::string out;
    for (size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        if (m.role != "assistant") {
            out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
            continue;
        }
        const auto [reasoning, answer] = split_thinking(m.content);
        const bool last = i + 1 == messages.size();
        out += "<|im_start|>assistant\n";
        // reasoning has no surrounding newlines left, so the template's strip('\n') of it changes nothing.
        if (i > last_query && (last || !reasoning.empty()))
            out += "<think>\n" + std::string(reasoning) + "\n</think>\n\n" + std::string(lstripped(answer, '\n'));
        else out += answer;
        out += "<|im_end|>\n";
    }
    if (options.add_generation_prompt) {
        out += "<|im_start|>assistant\n";
        if (!options.enable_thinking) out += "<think>\n\n</think>\n\n";
    }
    return out;
}

// Gemma 3's template. Gemma has no system role: Gemma 3's template puts a
// first system message's content, untrimmed, and "\n\n" at the start of the
// first turn (Gemma 1 and 2's templates raise an error instead; tessera renders
// Gemma 3's way for all of them, so that a system prompt works). The roles must
// then alternate user/model, the assistant's turns are named "model", every
// content is trimmed, and the prompt starts with Gemma's BOS text. (A system
// message with no turn after it renders nothing, as in the template.)
std::string gemma(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string first_prefix;
    const bool has_system = !messages.empty() && messages.front().role == "system";
    if (has_system) {
        first_prefix = messages.front().content + "\n\n";
        messages = messages.subspan(1);
    }
    require_alternating("gemma", messages, has_system);
    std::string out = "<bos>";
    for (size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        out += "<start_of_turn>" + std::string(m.role == "assistant" ? "model" : "user") + "\n" +
               (i == 0 ? first_prefix : "") + std::string(trimmed(m.content)) + "<end_of_turn>\n";
    }
    if (add_generation_prompt) out += "<start_of_turn>model\n";
    return out;
}

// Phi-3-mini's (and Phi-3.5-mini's) template: "<|role|>\n" + content + "<|end|>\n"
// per message, contents as given, no BOS text (the tokenizer adds BOS where the
// vocabulary asks). Every turn, the assistant's too, ends with <|end|>; without a
// generation prompt the template ends with the EOS text <|endoftext|> instead.
// The template skips messages of other roles without a word; tessera refuses them.
std::string phi3(std::span<const ChatMessage> messages, bool add_generation_prompt) {
    std::string out;
    for (size_t i = 0; i < messages.size(); ++i) {
        const std::string& role = messages[i].role;
        if (role != "system" && role != "user" && role != "assistant")
            throw Error("chat template phi3: message " + std::to_string(i + 1) + " has role \"" + role +
                        "\"; the template renders system, user and assistant messages only");
        out += "<|" + role + "|>\n" + messages[i].content + "<|end|>\n";
    }
    out += add_generation_prompt ? "<|assistant|>\n" : "<|endoftext|>";
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
    // Qwen3's hybrid-thinking models; the later Qwen3 templates without the switch stay plain ChatML.
    if (contains(jinja, "<|im_start|>") && contains(jinja, "enable_thinking")) return {ChatFamily::qwen3, ""};
    if (contains(jinja, "<|im_start|>")) return {ChatFamily::chatml, ""};
    if (contains(jinja, "<|start_header_id|>")) return {ChatFamily::llama3, ""};
    if (contains(jinja, "[INST]")) return {ChatFamily::llama2, ""};
    if (contains(jinja, "<start_of_turn>")) return {ChatFamily::gemma, ""};
    // Before Zephyr, whose <|user|> and <|assistant|> Phi-3 shares (and Phi-3's templates
    // name eos_token too); Zephyr ends turns with </s>, Phi-3 with <|end|>. Phi-3-small's
    // template builds '<|' + role + '|>', so <|user|> need not be written out.
    if (contains(jinja, "<|assistant|>") && contains(jinja, "<|end|>")) return {ChatFamily::phi3, ""};
    if (contains(jinja, "<|user|>") && (contains(jinja, "</s>") || contains(jinja, "eos_token")))
        return {ChatFamily::zephyr, ""};
    return {ChatFamily::plain, "chat template not recognized (none of the markers of " + known_names(false) +
                                   "); using plain \"role: content\" lines"};
}

ChatTemplate ChatTemplate::named(std::string_view name) {
    for (const auto& n : kNames)
        if (n.name == name) return {n.family, ""};
    throw Error("unknown chat template \"" + std::string(name) + "\" (known: " + known_names() + ")");
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

std::string ChatTemplate::apply(std::span<const ChatMessage> messages, const ChatOptions& options) const {
    const bool add_generation_prompt = options.add_generation_prompt;
    switch (family_) {
        case ChatFamily::zephyr: return zephyr(messages, add_generation_prompt);
        case ChatFamily::llama2: return llama2(messages);
        case ChatFamily::llama3: return llama3(messages, add_generation_prompt);
        case ChatFamily::chatml: return chatml(messages, add_generation_prompt);
        case ChatFamily::qwen3: return qwen3(messages, options);
        case ChatFamily::gemma: return gemma(messages, add_generation_prompt);
        case ChatFamily::phi3: return phi3(messages, add_generation_prompt);
        case ChatFamily::plain: break;
    }
    return plain(messages, add_generation_prompt);
}

}  // namespace tessera
