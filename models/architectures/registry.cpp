#include "models/architectures/registry.hpp"

namespace tessera::model {

namespace {
const Architecture* const kArchitectures[] = {&kLlama};
}

const Architecture* find_architecture(std::string_view name) {
    for (const Architecture* a : kArchitectures)
        if (a->name == name) return a;
    return nullptr;
}

std::string_view known_architectures() { return "llama"; }

}  // namespace tessera::model
