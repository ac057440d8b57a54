#include "tools/serve/openai_json.hpp"

namespace tessera::serve {

using nlohmann::json;

const char* finish_reason(FinishReason reason) { return reason == FinishReason::Length ? "length" : "stop"; }

json usage_json(const JobResult& r) {
    return {{"prompt_tokens", r.prompt_tokens},
            {"completion_tokens", r.completion_tokens},
            {"total_tokens", r.prompt_tokens + r.completion_tokens},
            {"prompt_tokens_details", {{"cached_tokens", r.cached_tokens}}}};
}

namespace {

json head_json(const ResponseHead& head, bool chunk) {
    const bool chat = head.endpoint == Endpoint::Chat;
    return {{"id", head.id},
            {"object", chat ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion"},
            {"created", head.created},
            {"model", head.model}};
}

}  // namespace

json completion_json(const ResponseHead& head, const std::string& text, const JobResult& result) {
    json out = head_json(head, false);
    json choice = {{"index", 0}, {"finish_reason", finish_reason(result.finish)}};
    if (head.endpoint == Endpoint::Chat) {
        choice["message"] = {{"role", "assistant"}, {"content", text}};
    } else {
        choice["text"] = text;
        choice["logprobs"] = nullptr;
    }
    out["choices"] = json::array({choice});
    out["usage"] = usage_json(result);
    return out;
}

json chunk_json(const ResponseHead& head, const std::string& text, const JobResult* last, bool role_only) {
    json out = head_json(head, true);
    json choice = {{"index", 0}, {"finish_reason", last ? json(finish_reason(last->finish)) : json(nullptr)}};
    if (head.endpoint == Endpoint::Chat) {
        json delta = json::object();
        if (role_only) delta["role"] = "assistant";
        if (!text.empty()) delta["content"] = text;
        choice["delta"] = delta;
    } else {
        choice["text"] = text;
        choice["logprobs"] = nullptr;
    }
    out["choices"] = json::array({choice});
    if (last) out["usage"] = usage_json(*last);  // as llama.cpp's server does; clients ignore it
    return out;
}

json usage_chunk_json(const ResponseHead& head, const JobResult& result) {
    json out = head_json(head, true);
    out["choices"] = json::array();
    out["usage"] = usage_json(result);
    return out;
}

json models_json(const std::string& model_id, int64_t created, int64_t n_ctx) {
    return {{"object", "list"},
            {"data", json::array({{{"id", model_id},
                                   {"object", "model"},
                                   {"created", created},
                                   {"owned_by", "tessera"},
                                   {"meta", {{"n_ctx", n_ctx}}}}})}};
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string sse_event(const json& value) { return "data: " + dump(value) + "\n\n"; }

}  // namespace tessera::serve
