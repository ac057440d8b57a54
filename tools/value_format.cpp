#include "tools/value_format.hpp"

#include "tools/terminal_text.hpp"

#include <sstream>
#include <variant>

namespace tessera::cli {
namespace {

// In double quotes (a quote inside as \"), safe for a terminal, cut after max_bytes.
std::string quoted(const std::string& s, size_t max_bytes = 60) {
    std::string out = "\"";
    for (const char c : terminal_safe(std::string_view(s).substr(0, max_bytes))) out += c == '"' ? "\\\"" : std::string(1, c);
    if (s.size() > max_bytes) out += "...";
    return out + "\"";
}

}  // namespace

std::string format_value(const gguf::Value& value, size_t max_items) {
    return std::visit(
        [&](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            std::ostringstream os;
            if constexpr (std::is_same_v<T, std::string>) {
                return quoted(v);
            } else if constexpr (std::is_same_v<T, gguf::Array>) {
                os << "[" << gguf::value_type_name(v.elem_type) << " x " << v.items.size() << "]";
                if (!v.items.empty()) {
                    os << " ";
                    for (size_t i = 0; i < v.items.size() && i < max_items; ++i)
                        os << (i ? ", " : "") << format_value(v.items[i], max_items);
                    if (v.items.size() > max_items) os << ", ...";
                }
                return os.str();
            } else if constexpr (std::is_same_v<T, bool>) {
                return v ? "true" : "false";
            } else if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
                os << int(v);
                return os.str();
            } else {
                os << v;
                return os.str();
            }
        },
        value.v);
}

nlohmann::json value_to_json(const gguf::Value& value) {
    return std::visit(
        [](const auto& v) -> nlohmann::json {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, gguf::Array>) {
                auto arr = nlohmann::json::array();
                for (const auto& item : v.items) arr.push_back(value_to_json(item));
                return arr;
            } else {
                return v;
            }
        },
        value.v);
}

}  // namespace tessera::cli
