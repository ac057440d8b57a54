// The response bodies of the OpenAI API: chat.completion and text_completion
// objects, their streamed chunks (server-sent events), the model list.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "tools/serve/job.hpp"
#include "tools/serve/request.hpp"

namespace tessera::serve {

// What every object of one response repeats.
struct ResponseHead {
    Endpoint endpoint;
    std::string id;  // chatcmpl-... or cmpl-...
    int64_t created = 0;
    std::string model;
};

// "stop" or "length" (cancelled and failed jobs have no OpenAI reason: "stop").
const char* finish_reason(FinishReason reason);
nlohmann::json usage_json(const JobResult& result);

// The whole answer of a request without `stream`.
nlohmann::json completion_json(const ResponseHead& head, const std::string& text, const JobResult& result);
// One chunk of a streamed answer. The first chat chunk carries the role
// (role_only); the last one carries finish_reason, and the usage.
nlohmann::json chunk_json(const ResponseHead& head, const std::string& text, const JobResult* last,
                          bool role_only = false);
// The chunk stream_options.include_usage asks for: no choices, the usage.
nlohmann::json usage_chunk_json(const ResponseHead& head, const JobResult& result);

nlohmann::json models_json(const std::string& model_id, int64_t created, int64_t n_ctx);

// JSON text; invalid UTF-8 (a model may emit it) is replaced by U+FFFD rather than throwing.
std::string dump(const nlohmann::json& value);
// One server-sent event: "data: JSON\n\n".
std::string sse_event(const nlohmann::json& value);

}  // namespace tessera::serve
