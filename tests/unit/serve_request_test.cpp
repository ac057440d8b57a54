// The request checks of `tessera serve` (tools/serve/request.hpp) without a
// model: defaults, every field's range, the field each 400 names; and
// SequenceText's stop strings (tools/serve/sequence_text.hpp) with the
// stories260K tokenizer.
#include <gtest/gtest.h>

#include "conformance.hpp"
#include "models/gguf/file.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/request.hpp"
#include "tools/serve/sequence_text.hpp"

namespace tessera::serve {
namespace {

Request ok(const ParsedRequest& parsed) {
    if (const ApiError* e = std::get_if<ApiError>(&parsed)) {
        ADD_FAILURE() << e->message;
        return {};
    }
    return std::get<Request>(parsed);
}

// The field a refused body names (empty for a body that is not JSON at all).
std::string refused_field(Endpoint endpoint, const std::string& body) {
    const ParsedRequest parsed = parse_request(endpoint, body);
    const ApiError* e = std::get_if<ApiError>(&parsed);
    if (!e) {
        ADD_FAILURE() << "accepted: " << body;
        return "(accepted)";
    }
    EXPECT_EQ(e->status, 400);
    EXPECT_EQ(e->type, "invalid_request_error");
    return e->param;
}

TEST(ServeRequest, ChatDefaultsAndFields) {
    const Request r = ok(parse_request(Endpoint::Chat, R"({"messages": [{"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "text", "text": " there"}]}],
        "model": "m", "stream": true, "stream_options": {"include_usage": true}, "max_tokens": 7,
        "temperature": 0.5, "top_p": 0.9, "top_k": 5, "min_p": 0.1, "seed": 4294967295, "stop": "END",
        "presence_penalty": 0.5, "frequency_penalty": -0.5, "repeat_penalty": 1.1, "repeat_last_n": 32,
        "user": "ignored", "logit_bias": null})"));
    ASSERT_EQ(r.messages.size(), 2u);
    EXPECT_EQ(r.messages[0].role, "system");
    EXPECT_EQ(r.messages[1].content, "Hi there");
    EXPECT_EQ(r.model, "m");
    EXPECT_TRUE(r.stream);
    EXPECT_TRUE(r.include_usage);
    EXPECT_EQ(r.max_tokens, 7);
    EXPECT_FLOAT_EQ(r.sampling.temperature, 0.5f);
    EXPECT_FLOAT_EQ(r.sampling.top_p, 0.9f);
    EXPECT_EQ(r.sampling.top_k, 5);
    EXPECT_FLOAT_EQ(r.sampling.min_p, 0.1f);
    EXPECT_EQ(r.seed, 4294967295u);
    EXPECT_EQ(r.stop, std::vector<std::string>{"END"});
    EXPECT_FLOAT_EQ(r.sampling.presence_penalty, 0.5f);
    EXPECT_FLOAT_EQ(r.sampling.frequency_penalty, -0.5f);
    EXPECT_FLOAT_EQ(r.sampling.repeat_penalty, 1.1f);
    EXPECT_EQ(r.sampling.penalty_last_n, 32);

    const Request d = ok(parse_request(Endpoint::Completion, R"({"prompt": ["Once"], "max_tokens": null})"));
    EXPECT_EQ(d.prompt, "Once");
    EXPECT_EQ(d.max_tokens, -1);
    EXPECT_FALSE(d.stream);
    EXPECT_FALSE(d.seed.has_value());
    const SamplerParams defaults;
    EXPECT_EQ(d.sampling.temperature, defaults.temperature);
    EXPECT_EQ(d.sampling.top_k, defaults.top_k);
    // The newer name of the chat API wins.
    EXPECT_EQ(ok(parse_request(Endpoint::Completion, R"({"prompt": "", "max_tokens": 3, "max_completion_tokens": 9})"))
                  .max_tokens,
              9);
}

TEST(ServeRequest, EachBadFieldIsNamed) {
    const auto chat = [](const std::string& extra) {
        return refused_field(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "hi"}])" + extra + "}");
    };
    EXPECT_EQ(refused_field(Endpoint::Chat, "{"), "");
    EXPECT_EQ(refused_field(Endpoint::Chat, "[1, 2]"), "");
    EXPECT_EQ(refused_field(Endpoint::Chat, "{}"), "messages");
    EXPECT_EQ(refused_field(Endpoint::Chat, R"({"messages": []})"), "messages");
    EXPECT_EQ(refused_field(Endpoint::Chat, R"({"messages": "hi"})"), "messages");
    EXPECT_EQ(refused_field(Endpoint::Chat, R"({"messages": [3]})"), "messages[0]");
    EXPECT_EQ(refused_field(Endpoint::Chat, R"({"messages": [{"content": "hi"}]})"), "messages[0].role");
    EXPECT_EQ(refused_field(Endpoint::Chat, R"({"messages": [{"role": "user", "content": 5}]})"),
              "messages[0].content");
    EXPECT_EQ(refused_field(Endpoint::Chat,
                            R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]})"),
              "messages[0].content[0]");
    EXPECT_EQ(chat(R"(, "temperature": -1)"), "temperature");
    EXPECT_EQ(chat(R"(, "temperature": "1")"), "temperature");
    EXPECT_EQ(chat(R"(, "top_p": 2)"), "top_p");
    EXPECT_EQ(chat(R"(, "top_k": 1.5)"), "top_k");
    EXPECT_EQ(chat(R"(, "top_k": -1)"), "top_k");
    EXPECT_EQ(chat(R"(, "min_p": -0.1)"), "min_p");
    EXPECT_EQ(chat(R"(, "seed": -1)"), "seed");
    EXPECT_EQ(chat(R"(, "seed": 4294967296)"), "seed");
    EXPECT_EQ(chat(R"(, "max_tokens": 0)"), "max_tokens");
    EXPECT_EQ(chat(R"(, "max_tokens": 99999999999999999999)"), "max_tokens");
    EXPECT_EQ(chat(R"(, "max_completion_tokens": "many")"), "max_completion_tokens");
    EXPECT_EQ(chat(R"(, "stream": "yes")"), "stream");
    EXPECT_EQ(chat(R"(, "stream_options": 1)"), "stream_options");
    EXPECT_EQ(chat(R"(, "n": 2)"), "n");
    EXPECT_EQ(chat(R"(, "stop": 1)"), "stop");
    EXPECT_EQ(chat(R"(, "stop": ["a", 1])"), "stop");
    EXPECT_EQ(chat(R"(, "stop": ["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17"])"), "stop");
    EXPECT_EQ(chat(R"(, "presence_penalty": 3)"), "presence_penalty");
    EXPECT_EQ(chat(R"(, "frequency_penalty": -3)"), "frequency_penalty");
    EXPECT_EQ(chat(R"(, "repeat_penalty": 0)"), "repeat_penalty");
    EXPECT_EQ(chat(R"(, "repeat_last_n": -2)"), "repeat_last_n");
    EXPECT_EQ(chat(R"(, "model": 7)"), "model");
    EXPECT_EQ(refused_field(Endpoint::Completion, "{}"), "prompt");
    EXPECT_EQ(refused_field(Endpoint::Completion, R"({"prompt": ["a", "b"]})"), "prompt");
    EXPECT_EQ(refused_field(Endpoint::Completion, R"({"prompt": [1, 2]})"), "prompt");
}

// With the stories260K tokenizer: the text of a token sequence, fed one
// token at a time, cut before a stop string, held back while one may start.
TEST(ServeRequest, SequenceTextCutsStopStrings) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    const auto file = gguf::File::open((conformance / "models" / "stories260K-Q8_0.gguf").string());
    const auto tok = tokenizer::Tokenizer::from_gguf(file);
    // The prompt is BOS and "Once", the rest is what is generated after it.
    const std::vector<int32_t> all = tok->encode("Once upon a time there was a cat");
    ASSERT_EQ(tok->decode(std::span(all).first(2)), "Once");
    const std::vector<int32_t> prompt(all.begin(), all.begin() + 2), rest(all.begin() + 2, all.end());
    const auto run = [&](std::vector<std::string> stops, bool& stopped, std::vector<std::string>* parts = nullptr) {
        SequenceText text(*tok, prompt, std::move(stops));
        std::string out;
        for (const int32_t t : rest) {
            const std::string piece = text.push(t);
            if (parts) parts->push_back(piece);
            out += piece;
            if (text.stopped()) break;
        }
        stopped = text.stopped();
        return out + text.finish();
    };
    bool stopped = false;
    EXPECT_EQ(run({}, stopped), " upon a time there was a cat");
    EXPECT_FALSE(stopped);
    EXPECT_EQ(run({"there"}, stopped), " upon a time ");
    EXPECT_TRUE(stopped);
    EXPECT_EQ(run({"zzz", "a t"}, stopped), " upon ");
    EXPECT_TRUE(stopped);
    // A stop string's start at the end is text once the sequence ends without it.
    EXPECT_EQ(run({"cat!"}, stopped), " upon a time there was a cat");
    EXPECT_FALSE(stopped);
    // Held back while it could still be "time!", released when it cannot.
    std::vector<std::string> parts;
    EXPECT_EQ(run({"time!"}, stopped, &parts), " upon a time there was a cat");
    for (const std::string& p : parts)
        for (const char* start : {"t", "ti", "tim", "time"}) EXPECT_FALSE(p.ends_with(start)) << "'" << p << "' went out";
}

}  // namespace
}  // namespace tessera::serve
