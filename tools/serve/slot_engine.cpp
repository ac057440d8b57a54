#include "tools/serve/slot_engine.hpp"

#include <algorithm>
#include <exception>

namespace tessera::serve {
namespace {

// Texts of the tokens that end an assistant's turn in the chat families
// models/chat_template.hpp renders; where the vocabulary has one as a
// control token, generation ends there as it does at EOS.
constexpr const char* kEndOfTurnTexts[] = {"<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>",
                                           "<|endoftext|>", "</s>"};

std::unordered_set<int32_t> end_tokens(const tokenizer::Tokenizer& tokenizer) {
    const tokenizer::Vocab& vocab = tokenizer.vocab();
    std::unordered_set<int32_t> ids;
    if (vocab.data().eos_id != tokenizer::kNoToken) ids.insert(vocab.data().eos_id);
    for (const char* text : kEndOfTurnTexts)
        if (const auto id = vocab.find(text); id && vocab.type(*id) == tokenizer::TokenType::control) ids.insert(*id);
    return ids;
}

}  // namespace

SlotEngine::SlotEngine(const model::Model& model, const tokenizer::Tokenizer& tokenizer, SlotEngineOptions options)
    : tokenizer_(tokenizer), end_tokens_(end_tokens(tokenizer)), slots_(size_t(std::max(1, options.slots))),
      queue_(options.queue_limit) {
    for (Slot& slot : slots_) slot.session = std::make_unique<model::Session>(model, options.session);
}

SlotEngine::~SlotEngine() = default;

int64_t SlotEngine::n_ctx() const { return slots_.front().session->n_ctx(); }

Engine::Admission SlotEngine::submit(std::shared_ptr<Job> job) {
    switch (queue_.push(std::move(job))) {
        case JobQueue::Push::Ok: return Admission::Accepted;
        case JobQueue::Push::Full: return Admission::QueueFull;
        case JobQueue::Push::Closed: break;
    }
    return Admission::ShuttingDown;
}

EngineStats SlotEngine::stats() const {
    return {.slots = int(slots_.size()),
            .busy = busy_.load(),
            .queued = int(queue_.size()),
            .queue_limit = int(queue_.limit()),
            .finished = finished_.load(),
            .cancelled = cancelled_.load()};
}

void SlotEngine::wait_for_work() {
    if (busy_ > 0 || shutting_down_) return;
    queue_.wait();
}

void SlotEngine::shutdown() {
    shutting_down_ = true;
    for (const auto& job : queue_.close()) end_unstarted(job);
    queue_.wake();
}

void SlotEngine::end_unstarted(const std::shared_ptr<Job>& job) {
    ++finished_;
    ++cancelled_;
    if (job->on_done) job->on_done({.finish = FinishReason::Cancelled, .prompt_tokens = int(job->prompt.size())});
}

bool SlotEngine::step() {
    for (const auto& job : queue_.take_cancelled()) end_unstarted(job);
    if (shutting_down_) {
        for (const auto& job : queue_.close()) end_unstarted(job);
        for (Slot& slot : slots_)
            if (slot.job) finish(slot, FinishReason::Cancelled);
        return false;
    }
    admit();
    bool worked = false;
    for (Slot& slot : slots_) {
        if (!slot.job) continue;
        worked = true;
        if (slot.job->cancelled) {
            finish(slot, FinishReason::Cancelled);
            continue;
        }
        try {
            advance(slot);
        } catch (const std::exception& e) {
            // The cache may hold a half-written pass: start this slot afresh.
            slot.cached.clear();
            slot.session->reset();
            finish(slot, FinishReason::Error, e.what());
        }
    }
    return worked;
}

// Each waiting job goes to the free slot whose cache shares the longest start with its prompt.
void SlotEngine::admit() {
    while (busy_ < int(slots_.size())) {
        std::shared_ptr<Job> job = queue_.pop();
        if (!job) return;
        if (job->cancelled) {
            end_unstarted(job);
            continue;
        }
        Slot* best = nullptr;
        size_t best_shared = 0;
        for (Slot& slot : slots_) {
            if (slot.job) continue;
            const size_t shared = size_t(std::ranges::mismatch(slot.cached, job->prompt).in1 - slot.cached.begin());
            if (!best || shared > best_shared) best = &slot, best_shared = shared;
        }
        start(*best, std::move(job));
    }
}

void SlotEngine::start(Slot& slot, std::shared_ptr<Job> job) {
    const std::vector<int32_t>& prompt = job->prompt;
    const size_t shared = size_t(std::ranges::mismatch(slot.cached, prompt).in1 - slot.cached.begin());
    // At least the prompt's last token is evaluated again: its logits start the reply.
    const int64_t kept = slot.session->truncate(int64_t(std::min(shared, prompt.size() - 1)));
    slot.cached.resize(size_t(kept));
    slot.fed = size_t(kept);
    slot.cached_at_start = int(kept);
    slot.generated = 0;
    slot.logits.clear();
    slot.job = std::move(job);
    ++busy_;
    try {
        slot.sampler.emplace(slot.job->sampling);
        for (const int32_t t : prompt) slot.sampler->accept(t);
        slot.text.emplace(tokenizer_, prompt, slot.job->stop);
    } catch (const std::exception& e) {
        finish(slot, FinishReason::Error, e.what());
    }
}

void SlotEngine::advance(Slot& slot) {
    Job& job = *slot.job;
    model::Session& session = *slot.session;
    if (slot.fed < job.prompt.size()) {
        const size_t n = std::min(kPromptChunk, job.prompt.size() - slot.fed);
        const std::span<const int32_t> chunk(job.prompt.data() + slot.fed, n);
        slot.logits = session.eval(chunk);
        slot.cached.insert(slot.cached.end(), chunk.begin(), chunk.end());
        slot.fed += n;
        return;
    }
    const int32_t next = slot.sampler->sample(slot.logits);
    slot.sampler->accept(next);
    if (end_tokens_.contains(next)) return finish(slot, FinishReason::Stop);
    ++slot.generated;
    const std::string text = slot.text->push(next);
    if (!text.empty() && job.on_text) job.on_text(text);
    if (slot.text->stopped()) return finish(slot, FinishReason::Stop);
    if (slot.generated == job.max_tokens || session.n_past() >= session.n_ctx())
        return finish(slot, FinishReason::Length);
    slot.logits = session.eval(std::span(&next, 1));
    slot.cached.push_back(next);
}

void SlotEngine::finish(Slot& slot, FinishReason reason, std::string error) {
    std::shared_ptr<Job> job = std::move(slot.job);
    if (reason != FinishReason::Error && reason != FinishReason::Cancelled && slot.text) {
        const std::string rest = slot.text->finish();
        if (!rest.empty() && job->on_text) job->on_text(rest);
    }
    slot.text.reset();
    slot.sampler.reset();
    --busy_;
    ++finished_;
    if (reason == FinishReason::Cancelled) ++cancelled_;
    if (job->on_done)
        job->on_done({.finish = reason,
                      .prompt_tokens = int(job->prompt.size()),
                      .cached_tokens = slot.cached_at_start,
                      .completion_tokens = slot.generated,
                      .error = std::move(error)});
}

}  // namespace tessera::serve
