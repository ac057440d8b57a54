// Checks of numeric options, for CLI11's ->check(): CLI::Range alone lets NaN
// through (every comparison with NaN is false), and "inf" parses as a number.
// A failed check names the option and the accepted range.
#pragma once

#include <CLI/CLI.hpp>

namespace tessera::cli {

// A finite number in [min, max].
CLI::Validator finite_between(double min, double max);
// A finite number above `min` (min itself excluded).
CLI::Validator finite_above(double min);
// Any finite number.
CLI::Validator finite_number();
// A device index: digits only (each entry of --devices).
CLI::Validator device_index();

// The most threads -t accepts: four per hardware thread, at most 1024; more
// only slows every barrier down (a typo such as -t 1000 on 8 cores).
int max_threads();

}  // namespace tessera::cli
