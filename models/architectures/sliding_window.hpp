// Which layers of a model attend to a sliding window, as llama.cpp reads it:
// {arch}.attention.sliding_window_pattern is either one bool per layer (true:
// windowed) or a count n, with layer l windowed unless l % n == n - 1 (the
// last of every n is global; n = 0 makes every layer windowed). Without the
// key, the architecture's own default count applies.
#pragma once

#include <string>

#include "models/model.hpp"
#include "support/error.hpp"

namespace tessera::model {

inline bool is_sliding_layer(const Model& m, int layer, uint64_t default_pattern) {
    const std::string key = std::string(m.architecture().name) + ".attention.sliding_window_pattern";
    const gguf::Value* pattern = m.file().find(key);
    if (pattern == nullptr) return default_pattern == 0 || uint64_t(layer) % default_pattern < default_pattern - 1;
    if (const gguf::Array* per_layer = pattern->as_array()) {
        if (per_layer->elem_type != gguf::ValueType::BOOL || int64_t(per_layer->items.size()) != m.hparams().n_layer)
            throw Error(m.file().name() + ": " + key + " must be an integer or one bool per layer (" +
                        std::to_string(m.hparams().n_layer) + "), not an array of " +
                        std::to_string(per_layer->items.size()) + " " +
                        std::string(gguf::value_type_name(per_layer->elem_type)));
        return *per_layer->items[size_t(layer)].as_bool();
    }
    const std::optional<uint64_t> n = pattern->as_uint();
    if (!n) throw Error(m.file().name() + ": " + key + " must be an integer or one bool per layer");
    return *n == 0 || uint64_t(layer) % *n < *n - 1;
}

// The window of a windowed layer: `window` positions, refused where it
// is 0 or beyond any context.
inline int64_t checked_window(const Model& m, double window) {
    if (!(window >= 1 && window <= double(1 << 30)))
        throw Error(m.file().name() + ": " + std::string(m.architecture().name) +
                    ".attention.sliding_window = " + std::to_string(int64_t(window)) +
                    " is not a window size (1 to 2^30 positions)");
    return int64_t(window);
}

}  // namespace tessera::model
