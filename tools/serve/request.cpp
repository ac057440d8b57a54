#include "tools/serve/request.hpp"

#include <cmath>
#include <limits>

namespace tessera::serve {
namespace {

using nlohmann::json;

// Thrown inside the parser, returned as the ApiError.
struct Invalid {
    ApiError error;
};

[[noreturn]] void fail(const std::string& param, const std::string& message) {
    throw Invalid{invalid_field(param, message)};
}

const json* field(const json& body, const char* name) {
    const auto it = body.find(name);
    return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number(const json& body, const char* name, double lo, double hi, double fallback) {
    const json* v = field(body, name);
    if (!v) return fallback;
    if (!v->is_number()) fail(name, std::string("'") + name + "' must be a number");
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < lo || x > hi)
        fail(name, std::string("'") + name + "' must be between " + json(lo).dump() + " and " + json(hi).dump());
    return x;
}

int64_t integer(const json& body, const char* name, int64_t lo, int64_t hi, int64_t fallback) {
    const json* v = field(body, name);
    if (!v) return fallback;
    if (!v->is_number_integer()) fail(name, std::string("'") + name + "' must be an integer");
    // nlohmann keeps non-negative integers as uint64_t, negative ones as int64_t.
    const bool in_range = v->is_number_unsigned()
                              ? v->get<uint64_t>() <= uint64_t(hi) && (lo <= 0 || v->get<uint64_t>() >= uint64_t(lo))
                              : v->get<int64_t>() >= lo && v->get<int64_t>() <= hi;
    if (!in_range)
        fail(name, std::string("'") + name + "' must be between " + std::to_string(lo) + " and " + std::to_string(hi));
    return v->is_number_unsigned() ? int64_t(v->get<uint64_t>()) : v->get<int64_t>();
}

bool boolean(const json& body, const char* name, bool fallback) {
    const json* v = field(body, name);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(name, std::string("'") + name + "' must be true or false");
    return v->get<bool>();
}

// A message's content: a string, or a list of {"type": "text", "text": ...} parts.
std::string content(const json& v, const std::string& param) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_array()) fail(param, "'" + param + "' must be a string or a list of text parts");
    std::string text;
    for (size_t i = 0; i < v.size(); ++i) {
        const json& part = v[i];
        const std::string where = param + "[" + std::to_string(i) + "]";
        if (!part.is_object() || part.value("type", json()) != "text" || !part.contains("text") ||
            !part["text"].is_string())
            fail(where, "'" + where + "' must be {\"type\": \"text\", \"text\": STRING} (only text is supported)");
        text += part["text"].get<std::string>();
    }
    return text;
}

std::vector<ChatMessage> messages(const json& body, const RequestLimits& limits) {
    const json* v = field(body, "messages");
    if (!v) fail("messages", "'messages' is required");
    if (!v->is_array() || v->empty()) fail("messages", "'messages' must be a non-empty list");
    if (v->size() > limits.max_messages)
        fail("messages", "'messages' has more than " + std::to_string(limits.max_messages) + " messages");
    std::vector<ChatMessage> out;
    for (size_t i = 0; i < v->size(); ++i) {
        const json& m = (*v)[i];
        const std::string where = "messages[" + std::to_string(i) + "]";
        if (!m.is_object()) fail(where, "'" + where + "' must be an object");
        const json* role = field(m, "role");
        if (!role || !role->is_string()) fail(where + ".role", "'" + where + ".role' must be a string");
        std::string r = role->get<std::string>();
        if (r == "developer") r = "system";  // OpenAI's newer name for the system role
        if (r != "system" && r != "user" && r != "assistant")
            fail(where + ".role", "'" + where + ".role' must be system, user or assistant");
        const json* c = field(m, "content");
        out.push_back({std::move(r), c ? content(*c, where + ".content") : std::string()});
    }
    return out;
}

std::string prompt(const json& body) {
    const json* v = field(body, "prompt");
    if (!v) fail("prompt", "'prompt' is required");
    if (v->is_string()) return v->get<std::string>();
    // A list of one string is the same prompt; several would be several completions.
    if (v->is_array() && v->size() == 1 && (*v)[0].is_string()) return (*v)[0].get<std::string>();
    fail("prompt", "'prompt' must be a string (or a list of one string)");
}

std::vector<std::string> stops(const json& body, const RequestLimits& limits) {
    const json* v = field(body, "stop");
    if (!v) return {};
    std::vector<std::string> out;
    if (v->is_string()) {
        out.push_back(v->get<std::string>());
    } else if (v->is_array()) {
        if (v->size() > limits.max_stops)
            fail("stop", "'stop' may hold at most " + std::to_string(limits.max_stops) + " strings");
        for (const json& s : *v) {
            if (!s.is_string()) fail("stop", "'stop' must be a string or a list of strings");
            out.push_back(s.get<std::string>());
        }
    } else {
        fail("stop", "'stop' must be a string or a list of strings");
    }
    for (const std::string& s : out)
        if (s.size() > limits.max_stop_bytes)
            fail("stop", "a stop string may be at most " + std::to_string(limits.max_stop_bytes) + " bytes");
    return out;
}

Request parse(Endpoint endpoint, const json& body, const RequestLimits& limits) {
    if (!body.is_object()) throw Invalid{invalid_field("", "the request body must be a JSON object", "invalid_json")};
    Request r;
    r.endpoint = endpoint;
    if (const json* m = field(body, "model")) {
        if (!m->is_string()) fail("model", "'model' must be a string");
        r.model = m->get<std::string>();
    }
    if (endpoint == Endpoint::Chat) r.messages = messages(body, limits);
    else r.prompt = prompt(body);
    r.stream = boolean(body, "stream", false);
    if (const json* o = field(body, "stream_options")) {
        if (!o->is_object()) fail("stream_options", "'stream_options' must be an object");
        r.include_usage = boolean(*o, "include_usage", false);
    }
    if (integer(body, "n", 1, 1, 1) != 1) fail("n", "'n' must be 1");
    constexpr int64_t kMaxTokens = int64_t(1) << 30;
    // max_completion_tokens is the newer name in the chat API; it wins where both are given.
    r.max_tokens = int(integer(body, "max_completion_tokens", 1, kMaxTokens, integer(body, "max_tokens", 1, kMaxTokens, -1)));
    SamplerParams& s = r.sampling;
    s.temperature = float(number(body, "temperature", 0, 100, s.temperature));
    s.top_p = float(number(body, "top_p", 0, 1, s.top_p));
    s.top_k = int(integer(body, "top_k", 0, 1 << 30, s.top_k));
    s.min_p = float(number(body, "min_p", 0, 1, s.min_p));
    s.presence_penalty = float(number(body, "presence_penalty", -2, 2, s.presence_penalty));
    s.frequency_penalty = float(number(body, "frequency_penalty", -2, 2, s.frequency_penalty));
    s.repeat_penalty = float(number(body, "repeat_penalty", 0, 100, s.repeat_penalty));
    if (s.repeat_penalty <= 0) fail("repeat_penalty", "'repeat_penalty' must be above 0");
    s.penalty_last_n = int(integer(body, "repeat_last_n", 0, 1 << 30, s.penalty_last_n));
    if (field(body, "seed")) r.seed = uint32_t(integer(body, "seed", 0, std::numeric_limits<uint32_t>::max(), 0));
    r.stop = stops(body, limits);
    return r;
}

}  // namespace

ParsedRequest parse_request(Endpoint endpoint, std::string_view body, const RequestLimits& limits) {
    json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded())
        return invalid_field("", "the request body is not valid JSON", "invalid_json");
    try {
        return parse(endpoint, parsed, limits);
    } catch (const Invalid& e) {
        return e.error;
    } catch (const json::exception& e) {
        // A value of a type the checks above did not expect.
        return invalid_field("", std::string("malformed request: ") + e.what(), "invalid_json");
    }
}

}  // namespace tessera::serve
