#include "tools/serve/batch_engine.hpp"

#include <algorithm>
#include <exception>

#include "tools/serve/end_tokens.hpp"

namespace tessera::serve {
namespace {

size_t shared_start(const std::vector<int32_t>& cached, const std::vector<int32_t>& prompt) {
    return size_t(std::ranges::mismatch(cached, prompt).in1 - cached.begin());
}

}  // namespace

BatchEngine::BatchEngine(const model::Model& model, const tokenizer::Tokenizer& tokenizer, BatchEngineOptions options)
    : tokenizer_(tokenizer), end_tokens_(end_tokens(tokenizer)),
      batch_(model, options.session, std::max(1, options.slots)), notice_(batch_.take_notice()),
      slots_(size_t(batch_.n_seq())),
      queue_(options.queue_limit) {
    for (size_t i = 0; i < slots_.size(); ++i) slots_[i].seq = int64_t(i);
    if (options.warm_up) warm_up();
}

std::string BatchEngine::runs_on() const {
    const Backend& b = batch_.backend();
    const std::string device = b.device_name();
    return std::string(b.name()) + (device.empty() ? "" : ", " + device);
}

// The passes a server runs (a prompt chunk, a decode step of every slot),
// once before the first job: a GPU creates their pipelines and touches their
// buffers here rather than in the first request's time to first token
// (docs/server.md has what that was). Every sequence is empty after.
void BatchEngine::warm_up() {
    const int64_t chunk = std::min<int64_t>(int64_t(kPromptChunk), batch_.n_ctx() - 1);
    if (chunk > 0) batch_.eval(0, std::vector<int32_t>(size_t(chunk), 0));
    std::vector<model::BatchSession::Step> steps;
    for (const Slot& slot : slots_) steps.push_back({slot.seq, 0});
    batch_.decode(steps);
    for (const Slot& slot : slots_) batch_.truncate(slot.seq, 0);
}

BatchEngine::~BatchEngine() = default;

Engine::Admission BatchEngine::submit(std::shared_ptr<Job> job) {
    switch (queue_.push(std::move(job))) {
        case JobQueue::Push::Ok: return Admission::Accepted;
        case JobQueue::Push::Full: return Admission::QueueFull;
        case JobQueue::Push::Closed: break;
    }
    return Admission::ShuttingDown;
}

EngineStats BatchEngine::stats() const {
    return {.slots = int(slots_.size()),
            .busy = busy_.load(),
            .queued = int(queue_.size()),
            .queue_limit = int(queue_.limit()),
            .finished = finished_.load(),
            .cancelled = cancelled_.load()};
}

void BatchEngine::wait_for_work() {
    if (busy_ > 0 || shutting_down_) return;
    queue_.wait();
}

void BatchEngine::shutdown() {
    shutting_down_ = true;
    for (const auto& job : queue_.close()) end_unstarted(job);
    queue_.wake();
}

void BatchEngine::end_unstarted(const std::shared_ptr<Job>& job) {
    ++finished_;
    ++cancelled_;
    if (job->on_done) job->on_done({.finish = FinishReason::Cancelled, .prompt_tokens = int(job->prompt.size())});
}

bool BatchEngine::step() {
    for (const auto& job : queue_.take_cancelled()) end_unstarted(job);
    if (shutting_down_) {
        for (const auto& job : queue_.close()) end_unstarted(job);
        for (Slot& slot : slots_)
            if (slot.job) finish(slot, FinishReason::Cancelled);
        return false;
    }
    admit();
    bool worked = false;
    std::vector<model::BatchSession::Step> steps;
    for (Slot& slot : slots_) {
        if (!slot.job) continue;
        worked = true;
        if (slot.job->cancelled) {
            finish(slot, FinishReason::Cancelled);
            continue;
        }
        try {
            if (slot.fed < slot.job->prompt.size()) read_prompt(slot);
            // A prompt read to its end this round gives its first token in
            // this round's decode pass already.
            if (slot.fed < slot.job->prompt.size()) continue;
            if (const auto token = next_token(slot)) steps.push_back({slot.seq, *token});
        } catch (const std::exception& e) {
            fail(slot, e.what());
        }
    }
    if (!steps.empty()) decode(steps);
    return worked;
}

// Each waiting job goes to the free slot whose cache shares the longest start with its prompt.
void BatchEngine::admit() {
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
            const size_t shared = shared_start(slot.cached, job->prompt);
            if (!best || shared > best_shared) best = &slot, best_shared = shared;
        }
        start(*best, std::move(job));
    }
}

void BatchEngine::start(Slot& slot, std::shared_ptr<Job> job) {
    const std::vector<int32_t>& prompt = job->prompt;
    const size_t shared = shared_start(slot.cached, prompt);
    // At least the prompt's last token is evaluated again: its logits start
    // the reply. The session may keep less than asked (a sliding window's
    // ring that cannot rewind that far): what it keeps is what counts.
    const int64_t kept = batch_.truncate(slot.seq, int64_t(std::min(shared, prompt.size() - 1)));
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

void BatchEngine::read_prompt(Slot& slot) {
    const std::vector<int32_t>& prompt = slot.job->prompt;
    const size_t n = std::min(kPromptChunk, prompt.size() - slot.fed);
    const std::span<const int32_t> chunk(prompt.data() + slot.fed, n);
    slot.logits = batch_.eval(slot.seq, chunk);
    slot.cached.insert(slot.cached.end(), chunk.begin(), chunk.end());
    slot.fed += n;
}

std::optional<int32_t> BatchEngine::next_token(Slot& slot) {
    const Job& job = *slot.job;
    const int32_t next = slot.sampler->sample(slot.logits);
    slot.sampler->accept(next);
    if (end_tokens_.contains(next)) {
        finish(slot, FinishReason::Stop);
        return std::nullopt;
    }
    ++slot.generated;
    const std::string text = slot.text->push(next);
    if (!text.empty() && job.on_text) job.on_text(text);
    if (slot.text->stopped()) {
        finish(slot, FinishReason::Stop);
        return std::nullopt;
    }
    if (slot.generated == job.max_tokens || batch_.n_past(slot.seq) >= batch_.n_ctx()) {
        finish(slot, FinishReason::Length);
        return std::nullopt;
    }
    return next;
}

void BatchEngine::decode(const std::vector<model::BatchSession::Step>& steps) {
    std::vector<std::vector<float>> logits;
    try {
        logits = batch_.decode(steps);
    } catch (const std::exception& e) {
        // One pass for all of them: all of them fail.
        for (const auto& s : steps) fail(slots_[size_t(s.seq)], e.what());
        return;
    }
    for (size_t k = 0; k < steps.size(); ++k) {
        Slot& slot = slots_[size_t(steps[k].seq)];
        slot.logits = std::move(logits[k]);
        slot.cached.push_back(steps[k].token);
    }
}

// The sequence may hold a half-written pass: its next job starts afresh.
void BatchEngine::fail(Slot& slot, const char* error) {
    slot.cached.clear();
    batch_.truncate(slot.seq, 0);
    if (slot.job) finish(slot, FinishReason::Error, error);
}

void BatchEngine::finish(Slot& slot, FinishReason reason, std::string error) {
    std::shared_ptr<Job> job = std::move(slot.job);
    if (reason != FinishReason::Error && reason != FinishReason::Cancelled && slot.text) {
        const std::string rest = slot.text->finish();
        if (!rest.empty() && job->on_text) job->on_text(rest);
    }
    slot.text.reset();
    slot.sampler.reset();
    slot.logits.clear();
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
