// Presenting GGUF metadata values to people (text) and machines (JSON).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/gguf/value.hpp"

namespace tessera::cli {

// One line; arrays longer than max_items show their first items and the count.
std::string format_value(const gguf::Value& value, size_t max_items = 8);

// Full value; strings that are not valid UTF-8 are hex-escaped by nlohmann's replace handler.
nlohmann::json value_to_json(const gguf::Value& value);

}  // namespace tessera::cli
