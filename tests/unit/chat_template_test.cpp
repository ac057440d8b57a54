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
    // The message named is counted in the whole conversation, the system message included.
    const std::vector<ChatMessage> system_two_users = {{"system", "s"}, {"user", "a"}, {"user", "b"}};
    try {
        ChatTemplate::named("llama2").apply(system_two_users);
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"llama2", "message 3"});
    }
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

// Gemma 3's template: no system turn (its content and a blank line open the
// first user turn), the assistant is "model", contents trimmed, BOS text first.
TEST(ChatTemplate, Gemma) {
    const auto gemma = ChatTemplate::named("gemma");
    EXPECT_EQ(gemma.apply(kConversation),
              "<bos><start_of_turn>user\nYou are terse.\n\nHi<end_of_turn>\n"
              "<start_of_turn>model\nHello!<end_of_turn>\n"
              "<start_of_turn>user\nBye?<end_of_turn>\n"
              "<start_of_turn>model\n");
    // Turn contents are trimmed, the system content is not (the template adds
    // "\n\n" to it untrimmed); no generation prompt leaves the last turn closed.
    const std::vector<ChatMessage> spaced = {{"system", " Be brief.\n"}, {"user", "\n  Hi \n"}, {"assistant", " Yo\t"}};
    EXPECT_EQ(gemma.apply(spaced, {.add_generation_prompt = false}),
              "<bos><start_of_turn>user\n Be brief.\n\n\nHi<end_of_turn>\n<start_of_turn>model\nYo<end_of_turn>\n");
    const std::vector<ChatMessage> no_system = {{"user", "Hi"}};
    EXPECT_EQ(gemma.apply(no_system), "<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n");
    EXPECT_FALSE(gemma.has_thinking_switch());
}

TEST(ChatTemplate, GemmaRolesMustAlternate) {
    const std::vector<ChatMessage> two_users = {{"system", "s"}, {"user", "a"}, {"user", "b"}};
    try {
        ChatTemplate::named("gemma").apply(two_users);
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"gemma", "message 3", "\"user\"", "alternate"});
    }
    const std::vector<ChatMessage> model_first = {{"assistant", "a"}};
    EXPECT_THROW(ChatTemplate::named("gemma").apply(model_first), Error);
    const std::vector<ChatMessage> late_system = {{"user", "a"}, {"system", "b"}};
    EXPECT_THROW(ChatTemplate::named("gemma").apply(late_system), Error);
}

// Phi-3-mini's template: every message, the assistant's included, closed by
// <|end|> and a newline; contents as given; no BOS text; EOS text when there is no generation prompt.
TEST(ChatTemplate, Phi3) {
    const auto phi3 = ChatTemplate::named("phi3");
    EXPECT_EQ(phi3.apply(kConversation),
              "<|system|>\nYou are terse.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
              "<|user|>\nBye?<|end|>\n<|assistant|>\n");
    EXPECT_EQ(phi3.apply(kConversation, {.add_generation_prompt = false}),
              "<|system|>\nYou are terse.<|end|>\n<|user|>\nHi<|end|>\n<|assistant|>\nHello!<|end|>\n"
              "<|user|>\nBye?<|end|>\n<|endoftext|>");
    const std::vector<ChatMessage> spaced = {{"user", " Hi\n"}, {"user", "again"}};
    EXPECT_EQ(phi3.apply(spaced), "<|user|>\n Hi\n<|end|>\n<|user|>\nagain<|end|>\n<|assistant|>\n");
    const std::vector<ChatMessage> with_tool = {{"user", "Weather?"}, {"tool", "sunny"}};
    try {
        phi3.apply(with_tool);
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"phi3", "\"tool\"", "message 2"});
    }
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

// The published templates, whole, as their model files carry them in
// tokenizer.chat_template: Gemma 3 (google/gemma-3-*-it, also in ggml-org's GGUF
// files), Gemma 2 (google/gemma-2-2b-it), Phi-3-mini-4k-instruct's current one,
// its first one (April 2024, no system role), Phi-3-small's and Phi-3.5-mini's.
const char* const kGemma3Template = R"JINJA({{ bos_token }}
{%- if messages[0]['role'] == 'system' -%}
    {%- if messages[0]['content'] is string -%}
        {%- set first_user_prefix = messages[0]['content'] + '

' -%}
    {%- else -%}
        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '

' -%}
    {%- endif -%}
    {%- set loop_messages = messages[1:] -%}
{%- else -%}
    {%- set first_user_prefix = "" -%}
    {%- set loop_messages = messages -%}
{%- endif -%}
{%- for message in loop_messages -%}
    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}
        {{ raise_exception("Conversation roles must alternate user/assistant/user/assistant/...") }}
    {%- endif -%}
    {%- if (message['role'] == 'assistant') -%}
        {%- set role = "model" -%}
    {%- else -%}
        {%- set role = message['role'] -%}
    {%- endif -%}
    {{ '<start_of_turn>' + role + '
' + (first_user_prefix if loop.first else "") }}
    {%- if message['content'] is string -%}
        {{ message['content'] | trim }}
    {%- elif message['content'] is iterable -%}
        {%- for item in message['content'] -%}
            {%- if item['type'] == 'image' -%}
                {{ '<start_of_image>' }}
            {%- elif item['type'] == 'text' -%}
                {{ item['text'] | trim }}
            {%- endif -%}
        {%- endfor -%}
    {%- else -%}
        {{ raise_exception("Invalid content type") }}
    {%- endif -%}
    {{ '<end_of_turn>
' }}
{%- endfor -%}
{%- if add_generation_prompt -%}
    {{'<start_of_turn>model
'}}
{%- endif -%}
)JINJA";

const char* const kGemma2Template =
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}"
    "{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}"
    "{% endif %}{{ '<start_of_turn>' + role + '\n' + message['content'] | trim + '<end_of_turn>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{'<start_of_turn>model\n'}}{% endif %}";

const char* const kPhi3MiniTemplate =
    "{% for message in messages %}{% if message['role'] == 'system' %}{{'<|system|>\n' + message['content'] + "
    "'<|end|>\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + '<|end|>\n'}}"
    "{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + '<|end|>\n'}}{% endif %}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}";

const char* const kPhi3MiniFirstTemplate =
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') %}{{'<|user|>' + '\n' + "
    "message['content'] + '<|end|>' + '\n' + '<|assistant|>' + '\n'}}{% elif (message['role'] == 'assistant') %}"
    "{{message['content'] + '<|end|>' + '\n'}}{% endif %}{% endfor %}";

const char* const kPhi3SmallTemplate =
    "{{ bos_token }}{% for message in messages %}{{'<|' + message['role'] + '|>' + '\n' + message['content'] + "
    "'<|end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}"
    "{% endif %}";

const char* const kPhi35MiniTemplate =
    "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}{{'<|system|>\n' + "
    "message['content'] + '<|end|>\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\n' + message['content'] + "
    "'<|end|>\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\n' + message['content'] + "
    "'<|end|>\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}"
    "{{ eos_token }}{% endif %}";

// TinyLlama-1.1B-Chat-v1.0's, whole: Zephyr's format, which shares <|user|> and <|assistant|> with Phi-3's.
const char* const kTinyLlamaTemplate =
    "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\n' + message['content'] + "
    "eos_token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\n' + message['content'] + eos_token }}\n"
    "{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\n'  + message['content'] + eos_token }}\n"
    "{% endif %}\n{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}";

TEST(ChatTemplate, DetectsGemmaAndPhi3FromTheirPublishedTemplates) {
    const struct {
        const char* model;
        const char* jinja;
        ChatFamily family;
    } cases[] = {
        {"Gemma 3", kGemma3Template, ChatFamily::gemma},
        {"Gemma 2", kGemma2Template, ChatFamily::gemma},
        {"Phi-3-mini", kPhi3MiniTemplate, ChatFamily::phi3},
        {"Phi-3-mini (first)", kPhi3MiniFirstTemplate, ChatFamily::phi3},
        {"Phi-3-small", kPhi3SmallTemplate, ChatFamily::phi3},
        {"Phi-3.5-mini", kPhi35MiniTemplate, ChatFamily::phi3},
        {"TinyLlama", kTinyLlamaTemplate, ChatFamily::zephyr},
    };
    for (const auto& c : cases) {
        const auto t = ChatTemplate::detect(c.jinja);
        EXPECT_EQ(t.family(), c.family) << c.model;
        EXPECT_EQ(t.warning(), "") << c.model;
    }
}

TEST(ChatTemplate, NamesAndModels) {
    for (const char* name : {"zephyr", "llama2", "llama3", "chatml", "qwen3", "gemma", "phi3", "plain"})
        EXPECT_EQ(ChatTemplate::named(name).name(), name);
    EXPECT_EQ(ChatTemplate::named("gemma").family(), ChatFamily::gemma);
    EXPECT_EQ(ChatTemplate::named("phi3").family(), ChatFamily::phi3);
    try {
        ChatTemplate::named("vicuna");
        FAIL() << "no error";
    } catch (const Error& e) {
        gguf::test::expect_mentions(e.what(), {"vicuna", "chatml", "gemma", "phi3"});
    }
    // The warning for an unrecognized template names the families it looked for.
    gguf::test::expect_mentions(ChatTemplate::detect("{{ messages }}").warning(), {"gemma", "phi3", "plain"});

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
