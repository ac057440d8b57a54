// The architecture tables, one per file in this folder.
#pragma once

#include "models/architecture.hpp"

namespace tessera::model {

extern const Architecture kLlama;

}  // namespace tessera::model
