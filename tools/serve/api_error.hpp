// An error as the OpenAI API returns it: an HTTP status and
// {"error": {"message", "type", "param", "code"}}.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tessera::serve {

struct ApiError {
    int status = 400;
    std::string message;
    std::string type = "invalid_request_error";
    std::string code;   // e.g. "invalid_value"; empty: null
    std::string param;  // the request field at fault; empty: null

    nlohmann::json to_json() const {
        return {{"error",
                 {{"message", message},
                  {"type", type},
                  {"param", param.empty() ? nlohmann::json(nullptr) : nlohmann::json(param)},
                  {"code", code.empty() ? nlohmann::json(nullptr) : nlohmann::json(code)}}}};
    }
};

// A 400 about one field of the request.
inline ApiError invalid_field(std::string param, std::string message, std::string code = "invalid_value") {
    return {.status = 400, .message = std::move(message), .code = std::move(code), .param = std::move(param)};
}

}  // namespace tessera::serve
