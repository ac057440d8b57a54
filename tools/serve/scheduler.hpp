// The thread that drives an Engine: waits for work, then calls step() round
// after round; stop() shuts the engine down (every job ends as Cancelled)
// and joins the thread.
#pragma once

#include <thread>

#include "tools/serve/engine.hpp"

namespace tessera::serve {

class Scheduler {
public:
    explicit Scheduler(Engine& engine);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    void stop();

private:
    void loop();

    Engine& engine_;
    std::thread thread_;
};

}  // namespace tessera::serve
