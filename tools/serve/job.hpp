// A generation request as the engine sees it: token ids, sampling, stop
// conditions and where its output goes. The HTTP side builds it (request.hpp,
// prompt.hpp) and hands it to an Engine (engine.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/sampler.hpp"

namespace tessera::serve {

enum class FinishReason {
    Stop,       // end-of-generation token or a stop string
    Length,     // max_tokens, or the context is full
    Cancelled,  // the client went away, or the server is shutting down
    Error,      // the model failed (JobResult::error says why)
};

struct JobResult {
    FinishReason finish = FinishReason::Stop;
    int prompt_tokens = 0;
    int cached_tokens = 0;      // prompt tokens the slot's cache already held
    int completion_tokens = 0;  // sampled tokens, the end-of-generation token excluded
    std::string error;
};

struct Job {
    std::vector<int32_t> prompt;  // not empty, shorter than the context
    SamplerParams sampling;
    int max_tokens = -1;            // < 0: until end of generation or a full context
    std::vector<std::string> stop;  // generation ends before the first of these texts
    // Both are called on the engine's thread: keep them short and never
    // block on the HTTP side (they only hand data over, stream_channel.hpp).
    std::function<void(std::string_view text)> on_text;  // whole UTF-8 characters, stop texts withheld
    std::function<void(const JobResult&)> on_done;      // exactly once, last
    // Set by any thread; the engine drops the job at its next round.
    std::atomic<bool> cancelled{false};
};

}  // namespace tessera::serve
