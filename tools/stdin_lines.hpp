// Lines of standard input, read with read(2) itself so that a Ctrl-C while
// waiting for one is seen (std::getline on std::cin retries or fails without
// telling why).
#pragma once

#include <functional>
#include <string>

namespace tessera::cli {

class StdinLines {
public:
    enum class Result { Line, End, Interrupted };

    // The next line, without its newline (and a carriage return before it);
    // a last line without one counts too. Interrupted when the read was cut
    // short by a signal and `interrupted()` says so.
    Result next(std::string& line, const std::function<bool()>& interrupted);

private:
    std::string buffer_;
    bool at_end_ = false;
};

}  // namespace tessera::cli
