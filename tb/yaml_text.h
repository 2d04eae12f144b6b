// Reading a scenario or sweep file's YAML so that yaml-cpp is never handed input that makes it run for
// ever (docs/reliability.md, "Fuzzing"), and so that nothing after the first document is dropped unseen.
#pragma once

#include <cstddef>
#include <string>

#include <yaml-cpp/yaml.h>

namespace netasic {

// Length of the UTF-8 sequence starting at s[i] (1-4), or 0 when it is not valid UTF-8.
std::size_t utf8_length(const std::string& s, std::size_t i);

// The first YAML document of `text` (a null node for an empty file). InputError (exit 2), naming `name` and
// the line, when the text is not UTF-8 without control characters, nests [ ] / { } more than 16 deep, is not
// valid YAML, or holds a second document with content; `what` ends that last message ("a scenario file
// holds one map of keys").
YAML::Node load_one_yaml_document(const std::string& text, const std::string& name, const std::string& what);

}  // namespace netasic
