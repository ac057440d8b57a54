// BatchEngine (tools/serve/batch_engine.hpp) through HTTP: long prompts that
// go in chunk by chunk while other streams decode, requests that start and
// end at different rounds, and slots whose cached prompts the next request
// reuses; every greedy answer equals the lone run on a Session.
#include <future>

#include "conformance.hpp"
#include "serve_fixture.hpp"

namespace tessera::serve::test {
namespace {

using nlohmann::json;

// A story-like prompt of about `words` words, different for each seed.
std::string long_prompt(int words, int seed) {
    static const char* kWords[] = {"the", "dog", "ran", "to", "a", "big", "tree", "and", "Lily", "saw", "sun", "happy"};
    std::string p = "Once upon a time";
    for (int i = 0; i < words; ++i) p += std::string(" ") + kWords[size_t(i * 5 + seed * 7) % std::size(kWords)];
    return p;
}

TEST(ServeBatch, LongPromptsJoinWhileOthersDecode) {
    TESSERA_REQUIRE_CONFORMANCE(conformance);
    ServerStack stack(conformance / "models" / "stories260K-Q8_0.gguf", {.slots = 4});
    // Over BatchEngine::kPromptChunk tokens for some, one word for others.
    const std::vector<std::string> prompts = {long_prompt(60, 1), "Tom", long_prompt(40, 2), long_prompt(8, 3),
                                              long_prompt(100, 4), "The cat"};
    const std::vector<int> lengths = {40, 60, 30, 50, 20, 45};
    std::vector<std::string> alone;
    size_t longest = 0;
    for (size_t i = 0; i < prompts.size(); ++i) {
        const std::vector<int32_t> tokens = stack.tokenizer().encode(prompts[i]);
        ASSERT_LT(tokens.size() + size_t(lengths[i]), 256u) << "request " << i << " does not fit the context";
        alone.push_back(stack.lone_greedy(tokens, lengths[i]));
        longest = std::max(longest, tokens.size());
    }
    ASSERT_GT(longest, 2 * BatchEngine::kPromptChunk) << "no prompt takes three rounds to read";
    for (int round = 0; round < 2; ++round) {  // the second round finds the prompts in the slots' caches
        std::vector<std::future<json>> answers;
        for (size_t i = 0; i < prompts.size(); ++i)
            answers.push_back(std::async(std::launch::async, [&, i] {
                std::this_thread::sleep_for(std::chrono::milliseconds(3 * i));  // join at different rounds
                const auto res = stack.client()->Post(
                    "/v1/completions",
                    json{{"prompt", prompts[i]}, {"max_tokens", lengths[i]}, {"temperature", 0}}.dump(),
                    "application/json");
                return res && res->status == 200 ? json::parse(res->body) : json{};
            }));
        int cached = 0;
        for (size_t i = 0; i < prompts.size(); ++i) {
            const json answer = answers[i].get();
            ASSERT_TRUE(answer.contains("choices")) << "request " << i << " failed";
            EXPECT_EQ(answer["choices"][0]["text"], alone[i]) << "request " << i << ", round " << round;
            cached += answer["usage"]["prompt_tokens_details"]["cached_tokens"].get<int>();
        }
        if (round == 1) {
            EXPECT_GT(cached, 0) << "no slot's cache was reused";
        }
    }
    EXPECT_EQ(stack.engine().stats().busy, 0);
    EXPECT_EQ(stack.engine().stats().finished, 12u);
}

}  // namespace
}  // namespace tessera::serve::test
