// The body of POST /v1/chat/completions or /v1/completions, read and checked:
// a Request, or the 400 that names the field at fault. No model or tokenizer
// is needed here (prompt.hpp turns a Request into token ids), so that the
// fuzzer (tests/fuzz/serve_request_fuzz.cpp) can run it alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/chat_template.hpp"
#include "models/sampler.hpp"
#include "tools/serve/api_error.hpp"

namespace tessera::serve {

enum class Endpoint { Chat, Completion };

// Limits of what a request may ask for (beyond them: 400).
struct RequestLimits {
    size_t max_stops = 16;
    size_t max_stop_bytes = 256;
    size_t max_messages = 4096;
};

struct Request {
    Endpoint endpoint = Endpoint::Chat;
    std::string model;                  // empty: not given (any is fine)
    std::vector<ChatMessage> messages;  // Chat
    std::string prompt;                 // Completion
    bool stream = false;
    bool include_usage = false;  // stream_options.include_usage: a last chunk with the usage
    int max_tokens = -1;         // -1: until end of generation or a full context
    SamplerParams sampling;      // the defaults of `tessera run` where a field is absent
    std::optional<uint32_t> seed;  // absent: a random one
    std::vector<std::string> stop;
};

using ParsedRequest = std::variant<Request, ApiError>;

// Unknown fields are ignored (clients send many); null is the same as absent.
ParsedRequest parse_request(Endpoint endpoint, std::string_view body, const RequestLimits& limits = {});

}  // namespace tessera::serve
