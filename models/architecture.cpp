#include "models/architecture.hpp"

#include <charconv>
#include <mutex>
#include <vector>

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

namespace {

double eval_product(std::string_view expr, const HParamValues& values, std::string_view context) {
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

}  // namespace

double eval_hparam_expr(std::string_view expr, const HParamValues& values, std::string_view context) {
    double sum = 0;
    for (size_t pos = 0;;) {
        const size_t plus = expr.find('+', pos);
        sum += eval_product(expr.substr(pos, plus == std::string_view::npos ? plus : plus - pos), values, context);
        if (plus == std::string_view::npos) return sum;
        pos = plus + 1;
    }
}

namespace {

struct Registered {
    std::mutex mutex;
    std::vector<const Architecture*> architectures{std::begin(architectures::kAll), std::end(architectures::kAll)};
    std::string names;  // for known_architectures()
};

Registered& registered() {
    static Registered r;
    return r;
}

const Architecture* find_locked(const Registered& r, std::string_view name) {
    for (const Architecture* a : r.architectures)
        if (a->name == name) return a;
    return nullptr;
}

}  // namespace

const Architecture* find_architecture(std::string_view name) {
    Registered& r = registered();
    std::lock_guard lock(r.mutex);
    return find_locked(r, name);
}

void register_architecture(const Architecture& arch) {
    if (arch.block == nullptr) throw Error("architecture '" + std::string(arch.name) + "' has no block");
    Registered& r = registered();
    std::lock_guard lock(r.mutex);
    if (find_locked(r, arch.name)) throw Error("an architecture named '" + std::string(arch.name) + "' is known already");
    r.architectures.push_back(&arch);
    r.names.clear();
}

std::string known_architectures() {
    Registered& r = registered();
    std::lock_guard lock(r.mutex);
    if (r.names.empty())
        for (const Architecture* a : r.architectures) r.names += (r.names.empty() ? "" : ", ") + std::string(a->name);
    return r.names;
}

}  // namespace tessera::model
