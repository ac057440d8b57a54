#include "models/gguf/file.hpp"
