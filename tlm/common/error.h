// Error types shared by every layer.
//
// InputError is what bad user input (a scenario key, a topology or flow file, a CDF) raises: the message
// names the file/line or key and what is accepted. The CLI turns it into exit status 2. A model never
// aborts on a request it cannot serve; it returns a status instead (see the block models).
#pragma once

#include <stdexcept>
#include <string>

namespace netasic {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(what) {}
};

// Raised when a model detects a broken invariant of its own (a bug, not bad input).
class ModelError : public std::logic_error {
 public:
  explicit ModelError(const std::string& what) : std::logic_error(what) {}
};

}  // namespace netasic
