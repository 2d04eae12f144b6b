#include "tb/inputs/xml_lite.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "tb/inputs/parse_util.h"

namespace netasic::xml {

using input_detail::fail;
using input_detail::quoted;

const std::string* Element::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':' ||
         c == '-' || c == '.' || static_cast<unsigned char>(c) >= 0x80;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  std::unique_ptr<Element> document() {
    std::unique_ptr<Element> root;
    while (true) {
      skip_space();
      if (at_end()) break;
      if (starts("<?")) skip_past("?>", "processing instruction");
      else if (starts("<!--")) skip_past("-->", "comment");
      else if (starts("<!DOCTYPE")) skip_past(">", "DOCTYPE");
      else if (starts("<")) {
        if (root) fail(name_, line_, "a second top-level element; an XML document has one root element");
        root = element(0);
      } else {
        fail(name_, line_, "text {} outside the root element", quoted(s_.substr(pos_, 20)));
      }
    }
    if (!root) fail(name_, line_, "no XML element found; a GraphML file starts with <graphml>");
    return root;
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  bool starts(std::string_view p) const { return s_.compare(pos_, p.size(), p) == 0; }
  void advance(std::size_t n) {
    for (std::size_t i = 0; i < n && pos_ < s_.size(); ++i)
      if (s_[pos_++] == '\n') ++line_;
  }
  void skip_space() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\r' || s_[pos_] == '\n')) advance(1);
  }
  void skip_past(std::string_view end, std::string_view what) {
    const int start = line_;
    const std::size_t at = s_.find(end, pos_);
    if (at == std::string_view::npos) fail(name_, start, "unterminated {}: no closing {}", what, end);
    advance(at + end.size() - pos_);
  }
  std::string read_name(std::string_view what) {
    const std::size_t b = pos_;
    while (!at_end() && is_name_char(s_[pos_])) advance(1);
    if (pos_ == b) fail(name_, line_, "expected {} at {}", what, quoted(s_.substr(pos_, 20)));
    return std::string(s_.substr(b, pos_ - b));
  }

  // Decodes &lt; &gt; &amp; &quot; &apos; &#N; &#xN; in `raw`.
  std::string decode(std::string_view raw, int line) const {
    std::string out;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '&') {
        out += raw[i];
        continue;
      }
      const std::size_t semi = raw.find(';', i);
      if (semi == std::string_view::npos) fail(name_, line, "'&' without ';': write &amp; for a literal '&'");
      const std::string_view ent = raw.substr(i + 1, semi - i - 1);
      if (ent == "lt") out += '<';
      else if (ent == "gt") out += '>';
      else if (ent == "amp") out += '&';
      else if (ent == "quot") out += '"';
      else if (ent == "apos") out += '\'';
      else if (!ent.empty() && ent[0] == '#') {
        const bool hex = ent.size() > 1 && ent[1] == 'x';
        const std::string digits(ent.substr(hex ? 2 : 1));
        char* endp = nullptr;
        const unsigned long v = std::strtoul(digits.c_str(), &endp, hex ? 16 : 10);
        if (digits.empty() || *endp != '\0' || v == 0 || v > 0x7f)
          fail(name_, line, "character reference &{}; is not a printable ASCII character", ent);
        out += static_cast<char>(v);
      } else {
        fail(name_, line, "unknown entity &{};", ent);
      }
      i = semi;
    }
    return out;
  }

  void attributes(Element& e) {
    while (true) {
      skip_space();
      if (at_end()) fail(name_, e.line, "element <{}> is not closed", e.name);
      if (starts("/>") || starts(">")) return;
      const std::string key = read_name("an attribute name");
      skip_space();
      if (!starts("=")) fail(name_, line_, "attribute {} of <{}> has no value", key, e.name);
      advance(1);
      skip_space();
      if (at_end() || (s_[pos_] != '"' && s_[pos_] != '\''))
        fail(name_, line_, "the value of attribute {} must be quoted", key);
      const char q = s_[pos_];
      const int line = line_;
      advance(1);
      const std::size_t end = s_.find(q, pos_);
      if (end == std::string_view::npos) fail(name_, line, "the value of attribute {} is not closed", key);
      const std::string value = decode(s_.substr(pos_, end - pos_), line);
      advance(end + 1 - pos_);
      if (e.attribute(key)) fail(name_, line, "attribute {} given twice in <{}>", key, e.name);
      e.attributes.emplace_back(key, value);
    }
  }

  // GraphML nests four deep; the bound keeps a hostile file from exhausting the stack.
  static constexpr int kMaxDepth = 64;

  std::unique_ptr<Element> element(int depth) {
    if (depth > kMaxDepth) fail(name_, line_, "elements nested more than {} deep", kMaxDepth);
    auto e = std::make_unique<Element>();
    e->line = line_;
    advance(1);  // '<'
    e->name = read_name("an element name");
    attributes(*e);
    if (starts("/>")) {
      advance(2);
      return e;
    }
    advance(1);  // '>'
    content(*e, depth);
    return e;
  }

  void content(Element& e, int depth) {
    while (true) {
      if (at_end()) fail(name_, e.line, "element <{}> is never closed (no </{}>)", e.name, e.name);
      if (starts("</")) {
        const int line = line_;
        advance(2);
        const std::string closing = read_name("an element name");
        skip_space();
        if (!starts(">")) fail(name_, line, "malformed closing tag </{}", closing);
        advance(1);
        if (closing != e.name) fail(name_, line, "</{}> closes <{}> opened on line {}", closing, e.name, e.line);
        return;
      }
      if (starts("<!--")) skip_past("-->", "comment");
      else if (starts("<![CDATA[")) {
        advance(9);
        const std::size_t end = s_.find("]]>", pos_);
        if (end == std::string_view::npos) fail(name_, line_, "unterminated CDATA section");
        e.text += s_.substr(pos_, end - pos_);
        advance(end + 3 - pos_);
      } else if (starts("<?")) skip_past("?>", "processing instruction");
      else if (starts("<")) e.children.push_back(element(depth + 1));
      else {
        const int line = line_;
        const std::size_t end = std::min(s_.find('<', pos_), s_.size());
        e.text += decode(s_.substr(pos_, end - pos_), line);
        advance(end - pos_);
      }
    }
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

}  // namespace

std::unique_ptr<Element> parse(std::string_view text, const std::string& name) { return Reader(text, name).document(); }

}  // namespace netasic::xml
