#include "tools/stdin_lines.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "support/error.hpp"

namespace tessera::cli {

namespace {

// Waits until standard input has bytes (or its end); false when interrupted()
// or a signal came first. SIGINT is blocked from the last look at
// interrupted() until ppoll unblocks it atomically, so that a Ctrl-C arriving
// in between cannot be missed while the wait goes on.
bool wait_for_input(const std::function<bool()>& interrupted) {
    sigset_t sigint, before;
    sigemptyset(&sigint);
    sigaddset(&sigint, SIGINT);
    ::sigprocmask(SIG_BLOCK, &sigint, &before);
    if (interrupted()) {
        ::sigprocmask(SIG_SETMASK, &before, nullptr);
        return false;
    }
    pollfd input{.fd = STDIN_FILENO, .events = POLLIN, .revents = 0};
    sigset_t during = before;
    sigdelset(&during, SIGINT);
    const int n = ::ppoll(&input, 1, nullptr, &during);
    const int err = errno;
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    if (n < 0 && err != EINTR) throw Error(std::string("cannot wait for standard input: ") + std::strerror(err));
    return n > 0;
}

}  // namespace

StdinLines::Result StdinLines::next(std::string& line, const std::function<bool()>& interrupted) {
    for (;;) {
        if (const size_t newline = buffer_.find('\n'); newline != std::string::npos) {
            line = buffer_.substr(0, newline);
            buffer_.erase(0, newline + 1);
            if (line.ends_with('\r')) line.pop_back();
            return Result::Line;
        }
        if (at_end_) {
            if (buffer_.empty()) return Result::End;
            line = std::exchange(buffer_, {});
            return Result::Line;
        }
        if (!wait_for_input(interrupted)) {
            if (interrupted()) return Result::Interrupted;
            continue;
        }
        std::array<char, 4096> chunk;
        const ssize_t n = ::read(STDIN_FILENO, chunk.data(), chunk.size());
        if (n > 0) {
            buffer_.append(chunk.data(), size_t(n));
        } else if (n == 0) {
            at_end_ = true;
        } else if (errno != EINTR) {
            throw Error(std::string("cannot read standard input: ") + std::strerror(errno));
        } else if (interrupted()) {
            return Result::Interrupted;
        }
    }
}

}  // namespace tessera::cli
