// Quoting of file-provided names and bytes for error messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tessera::gguf {

// `text` in single quotes, non-printable bytes as \xNN, cut to a readable length.
std::string quoted(std::string_view text);

// "[256, 32000]": a shape in ggml order.
std::string shape_string(std::span<const uint64_t> ne);

}  // namespace tessera::gguf
