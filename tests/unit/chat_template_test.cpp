// Chat formats: the exact text each family's published template renders for
// one conversation (written out by hand), detection and naming.
#include <gtest/gtest.h>

#include <vector>

#include "gguf_test_util.hpp"
#include "models/chat_template.hpp"
#include "models/gguf/writer.hpp"
#include "support/error.hpp"

namespace tessera {
namespace {

const std::vector<ChatMessage> kConversation = {
    {"system", "You are terse."},
    {"user", "Hi"},
    {"assistant", "Hello!"},
    {"user", "Bye?"},
};

TEST(ChatTemplate, Zephyr) {
    EXPECT_EQ(ChatTemplate::named("zephyr").apply(kConversation),
              "<|system|>\nYou are terse.</s>\n<|user|>\nHi</s>\n<|assistant|>\nHello!</s>\n"
              "<|user|>\nBye?</s>\n<|assistant|>\n");
}

TEST(ChatTemplate, Llama2) {
    EXPECT_EQ(ChatTemplate::named("llama2").apply(kConversation),
              "<s>[INST] <<SYS>>\nYou are terse.\n<</SYS>>\n\nHi [/INST] Hello! </s><s>[INST] Bye? [/INST]");
    const std::vector<ChatMessage> no_system = {{"user", "  Hi\n"}};
    EXPECT_EQ(ChatTemplate::named("llama2").apply(no_system), "<s>[INST] Hi [/INST]");
    const std::vector<ChatMessage> two_users = {{"user", "a"}, {"user", "b"}};
    EXPECT_THROW(ChatTemplate::named("llama2").apply(two_users), Error);
}

TEST(ChatTemplate, Llama3) {
    EXPECT_EQ(ChatTemplate::named("llama3").apply(kConversation),
              "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nBye?<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n");
}

TEST(ChatTemplate, ChatMl) {
    EXPECT_EQ(ChatTemplate::named("chatml").apply(kConversation),
              "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye?<|im_end|>\n"
              "<|im_start|>assistant\n");
    EXPECT_EQ(ChatTemplate::named("chatml").apply(kConversation, {.add_generation_prompt = false}),
              "<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye?<|im_end|>\n");
}

// Qwen3 (hybrid thinking): three user turns; both earlier replies thought
// aloud, and the template keeps only their answers.
const std::vector<ChatMessage> kThinkingConversation = {
    {"system", "You are terse."},
    {"user", "2+2?"},
    {"assistant", "<think>\nAdd them.\n</think>\n\n4."},
    {"user", "3+3?"},
    {"assistant", "<think>\n\nDouble it.\n\n</think>\n\n\n6."},
    {"user", "Thanks!"},
};
const std::string kThinkingHistory =
    "<|im_start|>system\nYou are terse.<|im_end|>\n"
    "<|im_start|>user\n2+2?<|im_end|>\n"
    "<|im_start|>assistant\n4.<|im_end|>\n"
    "<|im_start|>user\n3+3?<|im_end|>\n"
    "<|im_start|>assistant\n6.<|im_end|>\n"
    "<|im_start|>user\nThanks!<|im_end|>\n";

TEST(ChatTemplate, Qwen3DropsEarlierReasoning) {
    const auto qwen3 = ChatTemplate::named("qwen3");
    EXPECT_TRUE(qwen3.has_thinking_switch());
    EXPECT_EQ(qwen3.apply(kThinkingConversation), kThinkingHistory + "<|im_start|>assistant\n");
    EXPECT_EQ(qwen3.apply(kThinkingConversation, {.enable_thinking = false}),
              kThinkingHistory + "<|im_start|>assistant\n<think>\n\n</think>\n\n");
    EXPECT_EQ(qwen3.apply(kThinkingConversation, {.add_generation_prompt = false}), kThinkingHistory);
    EXPECT_EQ(qwen3.apply(kThinkingConversation, {.add_generation_prompt = false, .enable_thinking = false}),
              kThinkingHistory);
}

TEST(ChatTemplate, Qwen3KeepsReasoningAfterTheLastQuery) {
    const auto qwen3 = ChatTemplate::named("qwen3");
    // The conversation ending with the answer to the last query: that reply keeps its (newline-trimmed) reasoning.
    std::vector<ChatMessage> answered(kThinkingConversation.begin(), kThinkingConversation.end() - 1);
    EXPECT_EQ(qwen3.apply(answered, {.add_generation_prompt = false}),
              "<|im_start|>system\nYou are terse.<|im_end|>\n"
              "<|im_start|>user\n2+2?<|im_end|>\n"
              "<|im_start|>assistant\n4.<|im_end|>\n"
              "<|im_start|>user\n3+3?<|im_end|>\n"
              "<|im_start|>assistant\n<think>\nDouble it.\n</think>\n\n6.<|im_end|>\n");
    // A final reply without reasoning gets an empty block; an earlier one after
    // the last query gets none; a user message that is a tool result is no query.
    const std::vector<ChatMessage> replies = {
        {"user", "Hi"},
        {"user", "<tool_response>x</tool_response>"},
        {"assistant", "Hello"},
        {"assistant", "\nBye"},
    };
    EXPECT_EQ(qwen3.apply(replies, {.add_generation_prompt = false}),
              "<|im_start|>user\nHi<|im_end|>\n"
              "<|im_start|>user\n<tool_response>x</tool_response><|im_end|>\n"
              "<|im_start|>assistant\nHello<|im_end|>\n"
              "<|im_start|>assistant\n<think>\n\n</think>\n\nBye<|im_end|>\n");
}

TEST(ChatTemplate, Qwen3RefusesToolMessages) {
    const std::vector<ChatMessage> with_tool = {{"user", "Weather?"}, {"tool", "{\"sunny\": true}"}};
    try {
        ChatTemplate::named("qwen3").apply(with_tool);
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"qwen3", "\"tool\"", "message 2"});
    }
    EXPECT_THROW(ChatTemplate::named("qwen3").apply({}), Error);
    EXPECT_FALSE(ChatTemplate::named("chatml").has_thinking_switch());
}

TEST(ChatTemplate, Plain) {
    EXPECT_EQ(ChatTemplate::named("plain").apply(kConversation),
              "system: You are terse.\nuser: Hi\nassistant: Hello!\nuser: Bye?\nassistant:");
}

TEST(ChatTemplate, DetectsFamiliesByMarkers) {
    // Abridged from the published templates of TinyLlama-1.1B-Chat, Llama-2-chat, Llama-3-Instruct, ChatML models
    // and Qwen3 (its enable_thinking switch tells it from plain ChatML).
    const struct {
        const char* jinja;
        ChatFamily family;
    } cases[] = {
        {"{% for message in messages %}{% if message['role'] == 'user' %}{{ '<|user|>\n' + message['content'] + "
         "eos_token }}{% endif %}{% if loop.last and add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
         "{% endfor %}",
         ChatFamily::zephyr},
        {"{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }}"
         "{% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' %}",
         ChatFamily::llama2},
        {"{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + "
         "message['content'] | trim + '<|eot_id|>' %}",
         ChatFamily::llama3},
        {"{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
         "'<|im_end|>' + '\n'}}{% endfor %}",
         ChatFamily::chatml},
        {"{%- if (message.role == \"user\") or (message.role == \"system\" and not loop.first) %}"
         "{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}"
         "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}"
         "{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}",
         ChatFamily::qwen3},
    };
    for (const auto& c : cases) {
        const auto t = ChatTemplate::detect(c.jinja);
        EXPECT_EQ(t.family(), c.family) << c.jinja;
        EXPECT_EQ(t.warning(), "");
    }
    const auto unknown = ChatTemplate::detect("{{ messages[0]['content'] }}<|end|>");
    EXPECT_EQ(unknown.family(), ChatFamily::plain);
    EXPECT_NE(unknown.warning(), "");
}

TEST(ChatTemplate, NamesAndModels) {
    for (const char* name : {"zephyr", "llama2", "llama3", "chatml", "qwen3", "plain"})
        EXPECT_EQ(ChatTemplate::named(name).name(), name);
    try {
        ChatTemplate::named("vicuna");
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"vicuna", "chatml"});
    }

    gguf::test::ScratchDir dir;
    gguf::Writer with;
    with.add_kv("tokenizer.chat_template", gguf::Value{std::string("{{ '<|im_start|>' }}")});
    with.write((dir / "with.gguf").string());
    const auto file = gguf::File::open((dir / "with.gguf").string());
    EXPECT_EQ(ChatTemplate::for_model(file).family(), ChatFamily::chatml);
    EXPECT_EQ(ChatTemplate::for_model(file, "llama3").family(), ChatFamily::llama3);

    gguf::Writer without;
    without.add_kv("general.name", gguf::Value{std::string("x")});
    without.write((dir / "without.gguf").string());
    const auto bare = ChatTemplate::for_model(gguf::File::open((dir / "without.gguf").string()));
    EXPECT_EQ(bare.family(), ChatFamily::plain);
    gguf::test::expect_mentions(bare.warning(), {"tokenizer.chat_template"});
}

}  // namespace
}  // namespace tessera
