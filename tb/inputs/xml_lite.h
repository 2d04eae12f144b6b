// A small XML reader for the GraphML topology files: elements, attributes, text, comments, CDATA, the
// XML declaration and a DOCTYPE (skipped), the five predefined entities and character references. Every
// element keeps the line it starts on, so a GraphML error can name it. No namespaces processing (a prefix
// stays part of the name), no DTD, no external entities: a GraphML file needs none of them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace netasic::xml {

struct Element {
  std::string name;
  int line = 0;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<std::unique_ptr<Element>> children;
  std::string text;  // character data directly inside, concatenated

  // The attribute's value, or nullptr.
  const std::string* attribute(std::string_view key) const;
};

// The document's root element. Throws InputError "<name>:<line>: ..." on malformed XML.
std::unique_ptr<Element> parse(std::string_view text, const std::string& name);

}  // namespace netasic::xml
