#include "models/architecture.hpp"

#include "support/error.hpp"

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
        auto it = values.find(term);
        if (it == values.end())
            throw Error(std::string(context) + " uses '" + std::string(term) +
                        "', which is not a hyperparameter declared before it");
        const double v = it->second;
        result = op == '=' ? v : op == '*' ? result * v : result / v;
        if (end == std::string_view::npos) break;
        op = expr[end];
        pos = end + 1;
    }
    return result;
}

}  // namespace tessera::model
