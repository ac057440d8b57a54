#include "models/gguf/writer.hpp"
