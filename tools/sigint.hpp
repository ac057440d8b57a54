// Ctrl-C in an interactive chat. While a SigintHandler lives, the first
// SIGINT only raises a flag: the reply in progress stops at its next token,
// and a wait for input ends (the chat then exits). A second SIGINT before the
// flag is cleared (the chat is busy where it does not look: a long prompt
// pass) ends the program at once, with a newline after what was printed.
#pragma once

#include <csignal>

namespace tessera::cli {

class SigintHandler {
public:
    // Installed without SA_RESTART, so that a read(2) waiting for input
    // returns EINTR instead of waiting on.
    SigintHandler();
    ~SigintHandler();  // puts the previous handler back
    SigintHandler(const SigintHandler&) = delete;
    SigintHandler& operator=(const SigintHandler&) = delete;

    bool raised() const;
    void clear();

private:
    struct sigaction previous_ {};
};

}  // namespace tessera::cli
