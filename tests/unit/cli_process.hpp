// The `tessera` binary as a child process with its three standard streams
// piped, for tests that talk to it (a chat) or signal it: input is written
// as the test goes, output is awaited by content, never by a clock.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace tessera::test {

class CliProcess {
public:
    // Runs `tessera` with `args` (split at spaces; no quoting).
    explicit CliProcess(const std::string& args) {
        std::vector<std::string> words{TESSERA_CLI_PATH};
        for (size_t at = 0; at < args.size();) {
            const size_t end = std::min(args.find(' ', at), args.size());
            if (end > at) words.push_back(args.substr(at, end - at));
            at = end + 1;
        }
        ::signal(SIGPIPE, SIG_IGN);  // a write to a child that ended fails instead of ending the tests
        int in[2], out[2], err[2];
        if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::dup2(err[1], 2);
            std::vector<char*> argv;
            for (auto& w : words) argv.push_back(w.data());
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        ::close(in[0]);
        ::close(out[1]);
        ::close(err[1]);
        stdin_ = in[1];
        fds_ = {out[0], err[0]};
    }
    ~CliProcess() {
        close_stdin();
        if (pid_ > 0 && status_ < 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        for (int fd : fds_)
            if (fd >= 0) ::close(fd);
    }
    CliProcess(const CliProcess&) = delete;
    CliProcess& operator=(const CliProcess&) = delete;

    void write(const std::string& text) { (void)!::write(stdin_, text.data(), text.size()); }
    void close_stdin() {
        if (stdin_ >= 0) ::close(stdin_);
        stdin_ = -1;
    }
    void signal(int sig) { ::kill(pid_, sig); }

    // Reads until stdout (or stderr) holds `text` at or after `from`; false
    // when the streams end first, or nothing comes for a minute (a hang).
    bool wait_for_stdout(const std::string& text, size_t from = 0) {
        return wait_until([&] { return out().find(text, from) != std::string::npos; });
    }
    bool wait_for_stderr(const std::string& text, size_t from = 0) {
        return wait_until([&] { return err().find(text, from) != std::string::npos; });
    }
    // Reads until `done()` holds, with the same limits.
    bool wait_until(const std::function<bool()>& done) {
        while (!done())
            if (!read_some(60'000)) return false;
        return true;
    }

    // Reads both streams to their end and returns the exit code; -1 when a
    // signal ended the process, or when it went a minute without output or
    // exit (a hang: it is killed).
    int wait() {
        while (read_some(60'000)) {
        }
        if (fds_[0] >= 0 || fds_[1] >= 0) ::kill(pid_, SIGKILL);  // streams still open: it hangs
        int status = 0;
        ::waitpid(pid_, &status, 0);
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return status_;
    }

    const std::string& out() const { return text_[0]; }
    const std::string& err() const { return text_[1]; }

private:
    // Reads what either open stream has; false when both ended or nothing came in time.
    bool read_some(int timeout_ms) {
        std::array<pollfd, 2> polls{};
        int open = 0;
        for (size_t i = 0; i < 2; ++i) {
            polls[i] = {.fd = fds_[i], .events = POLLIN, .revents = 0};
            open += fds_[i] >= 0;
        }
        if (open == 0 || ::poll(polls.data(), polls.size(), timeout_ms) <= 0) return false;
        for (size_t i = 0; i < 2; ++i) {
            if (fds_[i] < 0 || polls[i].revents == 0) continue;
            std::array<char, 4096> buf;
            const ssize_t n = ::read(fds_[i], buf.data(), buf.size());
            if (n > 0) {
                text_[i].append(buf.data(), size_t(n));
            } else {
                ::close(fds_[i]);
                fds_[i] = -1;
            }
        }
        return true;
    }

    pid_t pid_ = -1;
    int status_ = -1;
    int stdin_ = -1;
    std::array<int, 2> fds_{-1, -1};
    std::array<std::string, 2> text_;
};

}  // namespace tessera::test
