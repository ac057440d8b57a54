// What the server needs from the model side, and all it knows of it: jobs go
// in through submit() from any thread; a scheduler thread (scheduler.hpp)
// calls step() in a loop, each call one round in which every active job
// advances (a chunk of its prompt, or one token). BatchEngine
// (batch_engine.hpp) implements it on a model::BatchSession; nothing above it
// knows how (docs/server.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/serve/job.hpp"

namespace tessera::serve {

struct EngineStats {
    int slots = 0;        // sequences that can run at once (--parallel)
    int busy = 0;         // slots running a job
    int queued = 0;       // jobs waiting for a slot
    int queue_limit = 0;  // jobs that may wait; beyond, submit() refuses
    uint64_t finished = 0;   // jobs ended so far, whatever the reason
    uint64_t cancelled = 0;  // of those, ended as Cancelled (a client that left, a shutdown)
};

class Engine {
public:
    enum class Admission { Accepted, QueueFull, ShuttingDown };

    virtual ~Engine() = default;

    // Takes a job (thread-safe). Its on_done is called later, on the
    // scheduler's thread, unless the job is refused.
    virtual Admission submit(std::shared_ptr<Job> job) = 0;
    // One round; the scheduler thread only. Returns whether there was work.
    virtual bool step() = 0;
    // Blocks until step() has something to do or shutdown() was called.
    virtual void wait_for_work() = 0;
    // Refuses new jobs and wakes wait_for_work(); the next step() ends every
    // job (queued or running) as Cancelled.
    virtual void shutdown() = 0;
    virtual bool shutting_down() const = 0;

    virtual EngineStats stats() const = 0;
    virtual int64_t n_ctx() const = 0;  // positions one sequence may use
    // Where the model runs, for the server's log: the backend, and its
    // device where it has one ("vulkan, NVIDIA H200").
    virtual std::string runs_on() const = 0;
    // Why it runs elsewhere than asked (a fall-back to the CPU) or how it is
    // split between devices; empty when neither.
    virtual std::string notice() const = 0;
};

}  // namespace tessera::serve
