// Ctrl-C in an interactive chat. A SigintHandler blocks SIGINT in the thread
// that makes it; made before any other thread starts (the compute threads,
// a driver's), every thread inherits the block, so that a Ctrl-C stays
// pending instead of landing in whichever thread the kernel picks, where the
// chat would not see it. raised() finds a pending one (the reply in progress
// stops at its next token); a wait for input that unblocks SIGINT while it
// waits (StdinLines's ppoll) is ended by one, caught by the handler.
#pragma once

#include <csignal>

namespace tessera::cli {

class SigintHandler {
public:
    SigintHandler();   // blocks SIGINT in this thread and installs the handler
    ~SigintHandler();  // puts the previous handler and signal mask back
    SigintHandler(const SigintHandler&) = delete;
    SigintHandler& operator=(const SigintHandler&) = delete;

    // Whether a Ctrl-C came since clear(): caught, or pending (then taken).
    bool raised();
    void clear();

private:
    struct sigaction previous_action_ {};
    sigset_t previous_mask_{};
};

}  // namespace tessera::cli
