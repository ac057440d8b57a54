// Text from a file (keys, tensor names, string values) made safe to print on
// a terminal, so that no escape sequence in a file can set the window title,
// clear the screen or hide what follows.
#pragma once

#include <string>
#include <string_view>

namespace tessera::cli {

// Printable ASCII and well-formed UTF-8 characters from U+00A0 on stay as
// they are; a backslash becomes "\\", a newline "\n", a tab "\t", and every
// other byte (control characters, DEL, the C1 controls U+0080..U+009F,
// malformed UTF-8) "\xNN" in hex.
std::string terminal_safe(std::string_view text);

}  // namespace tessera::cli
