#include "tools/sigint.hpp"

#include <pthread.h>

#include <ctime>

namespace tessera::cli {
namespace {

volatile std::sig_atomic_t g_raised = 0;

extern "C" void on_sigint(int) { g_raised = 1; }

sigset_t sigint_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    return set;
}

}  // namespace

SigintHandler::SigintHandler() {
    g_raised = 0;
    struct sigaction action {};
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;  // no SA_RESTART: the wait it ends returns EINTR
    ::sigaction(SIGINT, &action, &previous_action_);
    const sigset_t sigint = sigint_set();
    ::pthread_sigmask(SIG_BLOCK, &sigint, &previous_mask_);
}

SigintHandler::~SigintHandler() {
    ::pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
    ::sigaction(SIGINT, &previous_action_, nullptr);
}

bool SigintHandler::raised() {
    if (g_raised) return true;
    sigset_t pending;
    if (::sigpending(&pending) == 0 && sigismember(&pending, SIGINT)) {
        const sigset_t sigint = sigint_set();
        const timespec now{};
        ::sigtimedwait(&sigint, nullptr, &now);  // takes it, so that it is not caught again later
        g_raised = 1;
    }
    return g_raised != 0;
}

void SigintHandler::clear() { g_raised = 0; }

}  // namespace tessera::cli
