// libFuzzer target for `tessera serve`'s request-to-job path: an HTTP body
// (the input after its first byte, whose low bit picks the endpoint: 'c'
// chat, 'p' completion) through parse_request, then what the server does with
// an accepted request before it needs the model: the sampler built from its
// parameters (which must never refuse what the parser accepted) and the
// messages rendered by every chat template family. A refused body must give
// a 400 whose JSON serializes. Crashes, sanitizer reports and the aborts
// below are findings.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/chat_template.hpp"
#include "models/sampler.hpp"
#include "support/error.hpp"
#include "tools/serve/request.hpp"

using namespace tessera;
using namespace tessera::serve;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const Endpoint endpoint = (data[0] & 1) ? Endpoint::Chat : Endpoint::Completion;
    const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
    const ParsedRequest parsed = parse_request(endpoint, body);
    if (const ApiError* error = std::get_if<ApiError>(&parsed)) {
        if (error->status != 400 || error->message.empty()) std::abort();
        (void)error->to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return 0;
    }
    const Request& request = std::get<Request>(parsed);
    if (request.max_tokens == 0 || request.max_tokens < -1) std::abort();
    Sampler sampler(request.sampling);  // throws (a finding) on a parameter the parser let through
    if (endpoint == Endpoint::Chat) {
        if (request.messages.empty()) std::abort();
        for (const char* family : {"zephyr", "llama2", "llama3", "chatml", "qwen3", "gemma", "phi3", "plain"}) {
            try {
                (void)ChatTemplate::named(family).apply(request.messages);
            } catch (const Error&) {
                // A conversation the format cannot express: the server answers 400.
            }
        }
    }
    return 0;
}
