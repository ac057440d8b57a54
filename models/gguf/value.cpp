#include "models/gguf/value.hpp"
