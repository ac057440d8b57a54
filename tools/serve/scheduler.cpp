#include "tools/serve/scheduler.hpp"

#include <cstdio>
#include <exception>

namespace tessera::serve {

Scheduler::Scheduler(Engine& engine) : engine_(engine), thread_([this] { loop(); }) {}

Scheduler::~Scheduler() { stop(); }

void Scheduler::stop() {
    engine_.shutdown();
    if (thread_.joinable()) thread_.join();
}

void Scheduler::loop() {
    for (;;) {
        engine_.wait_for_work();
        try {
            // After shutdown, the round that ends every job is the last.
            const bool last = engine_.shutting_down();
            engine_.step();
            if (last) return;
        } catch (const std::exception& e) {
            // The engine ends a failing job itself; what lands here is a bug
            // outside one job. Keep serving the others.
            std::fprintf(stderr, "serve: error in the scheduler: %s\n", e.what());
        }
    }
}

}  // namespace tessera::serve
