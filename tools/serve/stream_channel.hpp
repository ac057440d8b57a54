// Hands a job's output from the engine's thread to the HTTP thread that
// answers its request: the engine appends text and, once, the result;
// the HTTP thread takes what has come, waiting a bounded time for it, so
// that it can check in between whether its client is still there.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "tools/serve/job.hpp"

namespace tessera::serve {

class StreamChannel {
public:
    void push_text(std::string_view text);
    void finish(const JobResult& result);

    struct Taken {
        std::string text;                // everything pushed since the last take
        std::optional<JobResult> done;   // set once the job has ended (after its last text)
    };
    // Returns as soon as there is text or the result, or after `timeout` with neither.
    Taken take(std::chrono::milliseconds timeout);

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    std::string text_;
    std::optional<JobResult> done_;
};

}  // namespace tessera::serve
