// `tessera serve` end to end in the test process (serve_fixture.hpp): the
// OpenAI endpoints over HTTP against stories260K, texts compared with the
// same greedy generation run directly on a Session; every error status;
// concurrent requests equal to lone ones; a client hanging up mid-stream.
#include <atomic>
#include <future>

#include "conformance.hpp"
#include "serve_fixture.hpp"

namespace tessera::serve::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::filesystem::path stories(const std::filesystem::path& conformance) {
    return conformance / "models" / "stories260K-Q8_0.gguf";
}

json post_json(httplib::Client& c, const std::string& path, const json& body, int expected_status) {
    const auto res = c.Post(path.c_str(), body.dump(), "application/json");
    EXPECT_TRUE(res) << path;
    if (!res) return {};
    EXPECT_EQ(res->status, expected_status) << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    return json::parse(res->body);
}

json greedy_completion(const std::string& prompt, int max_tokens) {
    return {{"prompt", prompt}, {"max_tokens", max_tokens}, {"temperature", 0}};
}

// The concatenated text of a streamed response's chunks, checking their shape on the way.
struct Streamed {
    std::string text;
    json last;   // the chunk with finish_reason
    json usage;  // the include_usage chunk, if any
    bool done = false;
};

Streamed parse_stream(const std::string& body, bool chat) {
    Streamed s;
    const std::vector<std::string> events = sse_data(body);
    for (size_t i = 0; i < events.size(); ++i) {
        if (events[i] == "[DONE]") {
            EXPECT_EQ(i + 1, events.size()) << "[DONE] must be last";
            s.done = true;
            break;
        }
        const json chunk = json::parse(events[i]);
        EXPECT_EQ(chunk["object"], chat ? "chat.completion.chunk" : "text_completion");
        if (chunk["choices"].empty()) {
            s.usage = chunk["usage"];
            continue;
        }
        const json& choice = chunk["choices"][0];
        if (chat) {
            if (i == 0) {
                EXPECT_EQ(choice["delta"]["role"], "assistant");
            }
            s.text += choice["delta"].value("content", "");
        } else {
            s.text += choice["text"].get<std::string>();
        }
        if (!choice["finish_reason"].is_null()) s.last = chunk;
    }
    return s;
}

TEST(ServeHttp, CompletionEqualsTheSameGreedyRunOnASession) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {});
    auto c = stack.client();
    const json out = post_json(*c, "/v1/completions", greedy_completion("Once upon a time", 40), 200);
    const auto prompt = stack.tokenizer().encode("Once upon a time");
    EXPECT_EQ(out["object"], "text_completion");
    EXPECT_EQ(out["model"], "stories");
    const std::string text = out["choices"][0]["text"];
    EXPECT_EQ(text, stack.lone_greedy(prompt, 40));
    EXPECT_FALSE(text.empty());
    EXPECT_EQ(out["usage"]["prompt_tokens"], prompt.size());
    const int completion = out["usage"]["completion_tokens"];
    EXPECT_EQ(out["usage"]["total_tokens"], prompt.size() + completion);
    // 40 tokens, unless the story ended first.
    EXPECT_EQ(out["choices"][0]["finish_reason"], completion == 40 ? "length" : "stop");
}

TEST(ServeHttp, ChatCompletionWholeAndStreamedAgree) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {});
    auto c = stack.client();
    const json request = {{"messages", {{{"role", "system"}, {"content", "Tell a story."}},
                                        {{"role", "user"}, {"content", "Lily had a cat."}}}},
                          {"max_tokens", 30},
                          {"temperature", 0}};
    const json whole = post_json(*c, "/v1/chat/completions", request, 200);
    EXPECT_EQ(whole["object"], "chat.completion");
    EXPECT_EQ(whole["choices"][0]["message"]["role"], "assistant");
    const std::string text = whole["choices"][0]["message"]["content"];
    // The prompt is the chat template's rendering (chatml here).
    const std::vector<ChatMessage> messages = {{"system", "Tell a story."}, {"user", "Lily had a cat."}};
    const auto prompt = stack.tokenizer().encode(ChatTemplate::named("chatml").apply(messages),
                                                 {.add_special = true, .parse_special = true});
    EXPECT_EQ(whole["usage"]["prompt_tokens"], prompt.size());
    EXPECT_EQ(text, stack.lone_greedy(prompt, 30));

    json streaming = request;
    streaming["stream"] = true;
    streaming["stream_options"] = {{"include_usage", true}};
    const auto res = c->Post("/v1/chat/completions", streaming.dump(), "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
    const Streamed s = parse_stream(res->body, true);
    EXPECT_TRUE(s.done);
    EXPECT_EQ(s.text, text);
    EXPECT_EQ(s.last["choices"][0]["finish_reason"], whole["choices"][0]["finish_reason"]);
    for (const char* count : {"prompt_tokens", "completion_tokens", "total_tokens"})
        EXPECT_EQ(s.usage[count], whole["usage"][count]) << count;
    // The same prompt again: the slot's cache held all of it but the last token, evaluated again for its logits.
    EXPECT_EQ(whole["usage"]["prompt_tokens_details"]["cached_tokens"], 0);
    EXPECT_EQ(s.usage["prompt_tokens_details"]["cached_tokens"], prompt.size() - 1);
}

TEST(ServeHttp, StreamedCompletionEndsAtAStopString) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {});
    auto c = stack.client();
    const std::string full = stack.lone_greedy(stack.tokenizer().encode("Once upon a time"), 60);
    ASSERT_GT(full.size(), 40u);
    // A stop string from the middle of the text: the answer is what comes before it.
    const std::string stop = full.substr(20, 6);
    const std::string before = full.substr(0, full.find(stop));
    json request = greedy_completion("Once upon a time", 60);
    request["stop"] = json::array({"never appears", stop});
    const json whole = post_json(*c, "/v1/completions", request, 200);
    EXPECT_EQ(whole["choices"][0]["text"], before);
    EXPECT_EQ(whole["choices"][0]["finish_reason"], "stop");
    request["stream"] = true;
    const auto res = c->Post("/v1/completions", request.dump(), "application/json");
    ASSERT_TRUE(res);
    const Streamed s = parse_stream(res->body, false);
    EXPECT_TRUE(s.done);
    EXPECT_EQ(s.text, before);
    EXPECT_EQ(s.last["choices"][0]["finish_reason"], "stop");
}

TEST(ServeHttp, ModelsHealthAndThePage) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {.slots = 3});
    auto c = stack.client();
    auto res = c->Get("/v1/models");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    const json models = json::parse(res->body);
    EXPECT_EQ(models["object"], "list");
    EXPECT_EQ(models["data"][0]["id"], "stories");
    EXPECT_EQ(models["data"][0]["meta"]["n_ctx"], 256);
    res = c->Get("/health");
    ASSERT_TRUE(res);
    const json health = json::parse(res->body);
    EXPECT_EQ(health["status"], "ok");
    EXPECT_EQ(health["slots"], 3);
    EXPECT_EQ(health["slots_idle"], 3);
    EXPECT_EQ(health["queued"], 0);
    res = c->Get("/");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_NE(res->body.find("/v1/chat/completions"), std::string::npos);
    EXPECT_EQ(res->body.find("http://"), std::string::npos) << "the page fetches nothing from elsewhere";
    EXPECT_EQ(res->body.find("https://"), std::string::npos) << "the page fetches nothing from elsewhere";
}

TEST(ServeHttp, BadRequestsGetOpenAIErrorsNamingTheField) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {.n_ctx = 64});
    auto c = stack.client();
    json e = post_json(*c, "/v1/chat/completions", "a JSON string, not an object", 400);
    EXPECT_EQ(e["error"]["code"], "invalid_json");
    auto res = c->Post("/v1/chat/completions", "{\"messages\": [", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 400);
    e = json::parse(res->body);
    EXPECT_EQ(e["error"]["code"], "invalid_json");
    EXPECT_EQ(e["error"]["type"], "invalid_request_error");

    e = post_json(*c, "/v1/chat/completions", {{"max_tokens", 5}}, 400);
    EXPECT_EQ(e["error"]["param"], "messages");
    e = post_json(*c, "/v1/chat/completions",
                  {{"messages", {{{"role", "user"}, {"content", "hi"}}}}, {"temperature", "hot"}}, 400);
    EXPECT_EQ(e["error"]["param"], "temperature");
    EXPECT_NE(e["error"]["message"].get<std::string>().find("temperature"), std::string::npos);
    e = post_json(*c, "/v1/chat/completions", {{"messages", {{{"role", "wizard"}, {"content", "hi"}}}}}, 400);
    EXPECT_EQ(e["error"]["param"], "messages[0].role");
    e = post_json(*c, "/v1/completions", {{"prompt", "x"}, {"top_p", 1.5}}, 400);
    EXPECT_EQ(e["error"]["param"], "top_p");
    e = post_json(*c, "/v1/completions", {{"prompt", "x"}, {"max_tokens", 0}}, 400);
    EXPECT_EQ(e["error"]["param"], "max_tokens");
    e = post_json(*c, "/v1/completions", {{"prompt", "x"}, {"stop", {1, 2}}}, 400);
    EXPECT_EQ(e["error"]["param"], "stop");
    e = post_json(*c, "/v1/completions", {{"prompt", 42}}, 400);
    EXPECT_EQ(e["error"]["param"], "prompt");

    // Longer than the context of 64 tokens: both numbers in the message.
    std::string long_prompt;
    for (int i = 0; i < 40; ++i) long_prompt += "Once upon a time ";
    const size_t n = stack.tokenizer().encode(long_prompt).size();
    ASSERT_GT(n, 64u);
    e = post_json(*c, "/v1/completions", {{"prompt", long_prompt}}, 400);
    EXPECT_EQ(e["error"]["code"], "context_length_exceeded");
    const std::string message = e["error"]["message"];
    EXPECT_NE(message.find(std::to_string(n)), std::string::npos) << message;
    EXPECT_NE(message.find("64"), std::string::npos) << message;

    e = post_json(*c, "/v1/completions", {{"prompt", "x"}, {"model", "gpt-4"}}, 404);
    EXPECT_EQ(e["error"]["code"], "model_not_found");
    EXPECT_EQ(e["error"]["param"], "model");
    res = c->Get("/v1/nothing");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 404);
    EXPECT_EQ(json::parse(res->body)["error"]["code"], "not_found");
    // The server still answers properly after all that.
    post_json(*c, "/v1/completions", greedy_completion("Once", 3), 200);
}

TEST(ServeHttp, ApiKeyIsRequiredWhenSet) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {.api_key = "sesame"});
    auto c = stack.client();
    json e = post_json(*c, "/v1/completions", greedy_completion("Once", 3), 401);
    EXPECT_EQ(e["error"]["code"], "invalid_api_key");
    auto res = c->Get("/v1/models");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 401);
    c->set_bearer_token_auth("wrong");
    post_json(*c, "/v1/completions", greedy_completion("Once", 3), 401);
    c->set_bearer_token_auth("sesame");
    post_json(*c, "/v1/completions", greedy_completion("Once", 3), 200);
    res = c->Get("/v1/models");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    // The health check and the page stay open.
    auto open = stack.client();
    res = open->Get("/health");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
}

// Four greedy requests at once on two slots: each text equals its lone run.
TEST(ServeHttp, ConcurrentRequestsEqualLoneRuns) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {.slots = 2});
    const std::vector<std::string> prompts = {"Once upon a time", "The little dog", "Tom and Sue went to the park",
                                              "One day, a big"};
    std::vector<std::string> alone;
    for (const std::string& p : prompts) alone.push_back(stack.lone_greedy(stack.tokenizer().encode(p), 48));
    for (int round = 0; round < 2; ++round) {  // the second round reuses the slots' caches
        std::vector<std::future<std::string>> answers;
        for (size_t i = 0; i < prompts.size(); ++i)
            answers.push_back(std::async(std::launch::async, [&, i] {
                auto c = stack.client();
                json request = greedy_completion(prompts[i], 48);
                request["stream"] = (i % 2 == 1);
                const auto res = c->Post("/v1/completions", request.dump(), "application/json");
                if (!res || res->status != 200) return std::string("(failed)");
                return i % 2 == 1 ? parse_stream(res->body, false).text
                                  : json::parse(res->body)["choices"][0]["text"].get<std::string>();
            }));
        for (size_t i = 0; i < prompts.size(); ++i) EXPECT_EQ(answers[i].get(), alone[i]) << prompts[i];
    }
    EXPECT_EQ(stack.engine().stats().busy, 0);
    EXPECT_EQ(stack.engine().stats().finished, 8u);
}

// A client that hangs up mid-stream cancels its job: the slot is free long
// before the generation would have ended, and serves the next request.
TEST(ServeHttp, DisconnectMidStreamFreesTheSlot) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    // 20 ms a round: the 200 tokens asked for would take 4 s.
    ServerStack stack(stories(conformance), {.slots = 1, .pause = 20ms});
    auto c = stack.client();
    int pieces = 0;
    const auto start = std::chrono::steady_clock::now();
    post_streaming(*c, "/v1/completions",
                   {{"prompt", "Once upon a time"}, {"max_tokens", 200}, {"temperature", 0}, {"stream", true}},
                   [&](const std::string& data) { return data.find("data: ") == std::string::npos || ++pieces < 3; });
    EXPECT_EQ(pieces, 3);
    while (stack.engine().stats().busy > 0 && std::chrono::steady_clock::now() - start < 3s)
        std::this_thread::sleep_for(10ms);
    EXPECT_EQ(stack.engine().stats().busy, 0) << "the slot is still generating for a client that left";
    EXPECT_EQ(stack.engine().stats().cancelled, 1u);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
    auto again = stack.client();
    post_json(*again, "/v1/completions", greedy_completion("Once", 3), 200);
}

// One slot, a queue of one: a third request is refused with 503 while the
// first runs and the second waits.
TEST(ServeHttp, FullQueueRefusesWith503) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(stories(conformance), {.slots = 1, .queue = 1, .pause = 20ms});
    const json slow = {{"prompt", "Once upon a time"}, {"max_tokens", 40}, {"temperature", 0}};
    auto first = std::async(std::launch::async, [&] {
        auto c = stack.client();
        const auto res = c->Post("/v1/completions", slow.dump(), "application/json");
        return res ? res->status : -1;
    });
    const auto wait_for = [&](auto done) {
        const auto start = std::chrono::steady_clock::now();
        while (!done() && std::chrono::steady_clock::now() - start < 5s) std::this_thread::sleep_for(5ms);
        return done();
    };
    ASSERT_TRUE(wait_for([&] { return stack.engine().stats().busy == 1; }));
    auto second = std::async(std::launch::async, [&] {
        auto c = stack.client();
        const auto res = c->Post("/v1/completions", slow.dump(), "application/json");
        return res ? res->status : -1;
    });
    ASSERT_TRUE(wait_for([&] { return stack.engine().stats().queued == 1; }));
    auto c = stack.client();
    const json e = post_json(*c, "/v1/completions", slow, 503);
    EXPECT_EQ(e["error"]["code"], "server_busy");
    EXPECT_EQ(e["error"]["type"], "server_error");
    EXPECT_EQ(first.get(), 200);
    EXPECT_EQ(second.get(), 200);
}

}  // namespace
}  // namespace tessera::serve::test
