// The jobs waiting for a slot: first in, first out, at most `limit` of them
// (beyond, the server answers 503), closed at shutdown. Shared by any engine.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "tools/serve/job.hpp"

namespace tessera::serve {

class JobQueue {
public:
    explicit JobQueue(size_t limit) : limit_(limit) {}

    enum class Push { Ok, Full, Closed };
    Push push(std::shared_ptr<Job> job);
    // The oldest job, or null when none waits.
    std::shared_ptr<Job> pop();
    // Removes and returns the jobs whose client went away while they waited.
    std::vector<std::shared_ptr<Job>> take_cancelled();
    // Refuses further pushes and returns what was waiting.
    std::vector<std::shared_ptr<Job>> close();

    // Blocks until a job waits, the queue is closed, or wake() was called.
    void wait();
    void wake();

    size_t size() const;
    size_t limit() const { return limit_; }
    bool closed() const;

private:
    const size_t limit_;
    mutable std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::shared_ptr<Job>> jobs_;
    bool closed_ = false;
    bool woken_ = false;
};

}  // namespace tessera::serve
