// The Engine of `tessera serve`: --parallel slots that are the sequences of
// one model::BatchSession (a KV cache of several sequences). Each round
// (step()) a job still reading its prompt evaluates its next kPromptChunk
// tokens (so that a long prompt holds the other streams up by one chunk per
// round, not by all of it); then every job past its prompt samples its next
// token with its own sampler, and ONE decode pass evaluates all of those
// tokens together. A slot keeps its cache when its job ends; the next job
// placed in it evaluates only what follows the longest start it shares with
// the cache (a chat's next turn), and jobs go to the free slot that shares
// the most with them.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <unordered_set>
#include <vector>

#include "models/batch_session.hpp"
#include "models/model.hpp"
#include "models/sampler.hpp"
#include "models/tokenizer/tokenizer.hpp"
#include "tools/serve/engine.hpp"
#include "tools/serve/job_queue.hpp"
#include "tools/serve/sequence_text.hpp"

namespace tessera::serve {

struct BatchEngineOptions {
    int slots = 1;            // --parallel: the session's sequences
    size_t queue_limit = 64;  // jobs that may wait for a slot
    model::SessionOptions session;  // n_ctx is each sequence's context
    bool warm_up = true;            // evaluate a prompt chunk and a decode step before the first job
};

class BatchEngine final : public Engine {
public:
    // Prompt tokens a slot evaluates per round.
    static constexpr size_t kPromptChunk = 64;

    BatchEngine(const model::Model& model, const tokenizer::Tokenizer& tokenizer, BatchEngineOptions options);
    ~BatchEngine() override;

    Admission submit(std::shared_ptr<Job> job) override;
    bool step() override;
    void wait_for_work() override;
    void shutdown() override;
    bool shutting_down() const override { return shutting_down_; }
    EngineStats stats() const override;
    int64_t n_ctx() const override { return batch_.n_ctx(); }
    std::string runs_on() const override;
    std::string notice() const override { return notice_; }

private:
    struct Slot {
        int64_t seq = 0;              // its sequence in batch_
        std::vector<int32_t> cached;  // the tokens whose keys and values the sequence holds, in order
        std::shared_ptr<Job> job;     // null: free
        size_t fed = 0;               // prompt tokens in the cache
        int cached_at_start = 0;
        int generated = 0;
        std::optional<Sampler> sampler;
        std::optional<SequenceText> text;
        std::vector<float> logits;  // after the last cached token
    };

    void warm_up();
    void admit();
    void start(Slot& slot, std::shared_ptr<Job> job);
    void read_prompt(Slot& slot);
    // Samples the slot's next token and hands its text on; returns the token
    // to evaluate, or nothing when the job ended with it.
    std::optional<int32_t> next_token(Slot& slot);
    void decode(const std::vector<model::BatchSession::Step>& steps);
    void fail(Slot& slot, const char* error);
    void finish(Slot& slot, FinishReason reason, std::string error = {});
    void end_unstarted(const std::shared_ptr<Job>& job);

    const tokenizer::Tokenizer& tokenizer_;
    std::unordered_set<int32_t> end_tokens_;  // EOS and the chat templates' end-of-turn tokens
    model::BatchSession batch_;
    std::string notice_;  // batch_'s
    std::vector<Slot> slots_;
    JobQueue queue_;
    std::atomic<int> busy_{0};
    std::atomic<uint64_t> finished_{0}, cancelled_{0};
    std::atomic<bool> shutting_down_{false};
};

}  // namespace tessera::serve
