#include "tools/option_checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

namespace tessera::cli {
namespace {

// `accepts(value)` on a finite parsed number; `what` describes the range.
template <class Accepts>
CLI::Validator finite_validator(const std::string& what, Accepts accepts) {
    return CLI::Validator(
        [what, accepts](std::string& input) -> std::string {
            double value = 0;
            if (!CLI::detail::lexical_cast(input, value)) return "'" + input + "' is not a number";
            if (!std::isfinite(value)) return "'" + input + "' is not a finite number (" + what + ")";
            if (!accepts(value)) return input + " is out of range (" + what + ")";
            return {};
        },
        what);
}

std::string number(double x) {
    std::ostringstream os;
    os << x;
    return os.str();
}

}  // namespace

CLI::Validator finite_between(double min, double max) {
    return finite_validator("a number in [" + number(min) + ", " + number(max) + "]",
                            [=](double v) { return v >= min && v <= max; });
}

CLI::Validator finite_above(double min) {
    return finite_validator("a number > " + number(min), [=](double v) { return v > min; });
}

CLI::Validator finite_number() {
    return finite_validator("a finite number", [](double) { return true; });
}

CLI::Validator device_index() {
    return CLI::Validator(
        [](std::string& input) -> std::string {
            const bool digits = !input.empty() && input.size() <= 9 &&
                                std::all_of(input.begin(), input.end(), [](char c) { return c >= '0' && c <= '9'; });
            return digits ? std::string() : "'" + input + "' is not a device index (see `tessera devices`)";
        },
        "a device index");
}

int max_threads() {
    const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    return std::min(1024, 4 * hardware);
}

}  // namespace tessera::cli
