// The architecture tables, one per file in this folder.
#pragma once

#include "models/architecture.hpp"

namespace tessera::model {

extern const Architecture kLlama;
extern const Architecture kQwen2;

}  // namespace tessera::model
