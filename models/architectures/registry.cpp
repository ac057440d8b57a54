#include "models/architectures/registry.hpp"

#include <string>

namespace tessera::model {

namespace {
const Architecture* const kArchitectures[] = {&kLlama, &kQwen2};
}

const Architecture* find_architecture(std::string_view name) {
    for (const Architecture* a : kArchitectures)
        if (a->name == name) return a;
    return nullptr;
}

std::string_view known_architectures() {
    static const std::string names = [] {
        std::string s;
        for (const Architecture* a : kArchitectures) s += (s.empty() ? "" : ", ") + std::string(a->name);
        return s;
    }();
    return names;
}

}  // namespace tessera::model
