// The one exception type tessera throws for bad input or unsupported requests.
// Messages name the thing at fault (file, field, value) so a user can act on them.
#pragma once

#include <stdexcept>
#include <string>

namespace tessera {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace tessera
