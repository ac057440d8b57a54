// The Engine of today's library: one model::Session (its own KV cache) per
// slot, advanced one after the other on the scheduler's thread. Each round a
// running job either feeds the next chunk of its prompt (kPromptChunk tokens,
// so that a long prompt does not hold the other streams up for long) or
// samples one token and evaluates it. A slot keeps its cache when its job
// ends; the next job placed in it evaluates only the tokens after the longest
// start it shares with what the cache holds (a chat's next turn), and jobs go
// to the free slot that shares the most with them.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "models/model.hpp"
#include "models/sampler.hpp"
#include "models/session.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/engine.hpp"
#include "tools/serve/job_queue.hpp"
#include "tools/serve/sequence_text.hpp"

namespace tessera::serve {

struct SlotEngineOptions {
    int slots = 1;           // --parallel
    size_t queue_limit = 64; // jobs that may wait for a slot
    model::SessionOptions session;
};

class SlotEngine final : public Engine {
public:
    // Prompt tokens a slot evaluates per round.
    static constexpr size_t kPromptChunk = 64;

    SlotEngine(const model::Model& model, const tokenizer::Tokenizer& tokenizer, SlotEngineOptions options);
    ~SlotEngine() override;

    Admission submit(std::shared_ptr<Job> job) override;
    bool step() override;
    void wait_for_work() override;
    void shutdown() override;
    bool shutting_down() const override { return shutting_down_; }
    EngineStats stats() const override;
    int64_t n_ctx() const override;

private:
    struct Slot {
        std::unique_ptr<model::Session> session;
        std::vector<int32_t> cached;  // the tokens whose keys and values the cache holds, in order
        std::shared_ptr<Job> job;     // null: free
        size_t fed = 0;               // prompt tokens in the cache
        int cached_at_start = 0;
        int generated = 0;
        std::optional<Sampler> sampler;
        std::optional<SequenceText> text;
        std::vector<float> logits;  // after the last cached token
    };

    void admit();
    void start(Slot& slot, std::shared_ptr<Job> job);
    void advance(Slot& slot);
    void finish(Slot& slot, FinishReason reason, std::string error = {});
    void end_unstarted(const std::shared_ptr<Job>& job);

    const tokenizer::Tokenizer& tokenizer_;
    std::unordered_set<int32_t> end_tokens_;  // EOS and the chat templates' end-of-turn tokens
    std::vector<Slot> slots_;
    JobQueue queue_;
    std::atomic<int> busy_{0};
    std::atomic<uint64_t> finished_{0}, cancelled_{0};
    std::atomic<bool> shutting_down_{false};
};

}  // namespace tessera::serve
