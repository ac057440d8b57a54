#include "tools/sigint.hpp"

#include <unistd.h>

#include <cstdlib>

namespace tessera::cli {
namespace {

volatile std::sig_atomic_t g_raised = 0;

// Only async-signal-safe calls here: write(2) and _exit(2).
extern "C" void on_sigint(int) {
    if (g_raised) {
        (void)!::write(STDERR_FILENO, "\n", 1);
        ::_exit(130);  // the shell's code for a program ended by SIGINT
    }
    g_raised = 1;
}

}  // namespace

SigintHandler::SigintHandler() {
    g_raised = 0;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    ::sigaction(SIGINT, &action, &previous_);
}

SigintHandler::~SigintHandler() { ::sigaction(SIGINT, &previous_, nullptr); }

bool SigintHandler::raised() const { return g_raised != 0; }

void SigintHandler::clear() { g_raised = 0; }

}  // namespace tessera::cli
