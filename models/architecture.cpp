#include "models/architecture.hpp"

#include <charconv>

#include "support/error.hpp"
#include "tessera/architecture_list.hpp"

namespace tessera::model {

namespace {

std::string replace_all(std::string_view text, std::string_view what, std::string_view with) {
    std::string out;
    size_t pos = 0;
    for (size_t hit; (hit = text.find(what, pos)) != std::string_view::npos; pos = hit + what.size())
        out.append(text.substr(pos, hit - pos)).append(with);
    return out.append(text.substr(pos));
}

}  // namespace

std::string HParam::key_for(std::string_view arch) const { return replace_all(key, "{arch}", arch); }

std::string TensorSpec::name_in(int layer) const { return replace_all(name, "{i}", std::to_string(layer)); }

std::string TensorSpec::bias_name_in(int layer) const {
    const std::string weight = name_in(layer);
    return weight.substr(0, weight.rfind(".weight")) + ".bias";
}

double eval_hparam_expr(std::string_view expr, const HParamValues& values, std::string_view context) {
    double result = 0;
    char op = '=';
    size_t pos = 0;
    while (pos <= expr.size()) {
        const size_t end = expr.find_first_of("*/", pos);
        const std::string_view term = expr.substr(pos, end == std::string_view::npos ? end : end - pos);
        double v = 0;
        if (auto it = values.find(term); it != values.end()) {
            v = it->second;
        } else if (const auto [end_of_number, ec] = std::from_chars(term.data(), term.data() + term.size(), v);
                   ec != std::errc() || end_of_number != term.data() + term.size()) {
            throw Error(std::string(context) + " uses '" + std::string(term) +
                        "', which is neither a number nor a hyperparameter declared before it");
        }
        result = op == '=' ? v : op == '*' ? result * v : result / v;
        if (end == std::string_view::npos) break;
        op = expr[end];
        pos = end + 1;
    }
    return result;
}

const Architecture* find_architecture(std::string_view name) {
    for (const Architecture* a : architectures::kAll)
        if (a->name == name) return a;
    return nullptr;
}

std::string_view known_architectures() {
    static const std::string names = [] {
        std::string s;
        for (const Architecture* a : architectures::kAll) s += (s.empty() ? "" : ", ") + std::string(a->name);
        return s;
    }();
    return names;
}

}  // namespace tessera::model
