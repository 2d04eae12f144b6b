#include "tb/yaml_text.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include "tlm/common/error.h"

namespace netasic {

std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  const std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return 0;
  return n;
}

namespace {

// Some invalid bytes and deep flow nesting make yaml-cpp run for ever (found by fuzzing), so it is given
// only UTF-8 text without control characters (tab and line ends aside) whose [ ] and { } nest at most
// kMaxFlowDepth deep.
constexpr int kMaxFlowDepth = 16;

void check_yaml_text(const std::string& text, const std::string& name) {
  int line = 1, depth = 0;
  bool comment = false;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t n = utf8_length(text, i);
    if (n == 0) throw InputError(fmt::format("{}:{}: byte 0x{:02x} is not UTF-8 text; the file must be UTF-8 text", name, line, c));
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      throw InputError(fmt::format("{}:{}: control character 0x{:02x}; the file must be text", name, line, c));
    if (c == '\n') {
      ++line;
      comment = false;
    } else if (c == '#') {
      comment = true;
    } else if (!comment && (c == '[' || c == '{') && ++depth > kMaxFlowDepth) {
      throw InputError(fmt::format("{}:{}: [ ] and {{ }} nested more than {} deep", name, line, kMaxFlowDepth));
    } else if (!comment && (c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    i += n;
  }
}

// Walks the documents of a stream without building them: where each starts, and the first node of any
// document after the first.
class DocumentWalker : public YAML::EventHandler {
 public:
  std::size_t documents = 0;
  std::size_t start_pos = 0;
  int extra_content_line = 0;  // 1-based line of the first node in a second or later document, or 0

  void OnDocumentStart(const YAML::Mark& mark) override {
    ++documents;
    start_pos = static_cast<std::size_t>(mark.pos);
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { content(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    content(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    content(mark);
  }
  void OnMapEnd() override {}

 private:
  void content(const YAML::Mark& mark) {
    if (documents > 1 && extra_content_line == 0) extra_content_line = mark.line + 1;
  }
};

// Every document of the stream is walked, not only the first: a second one would otherwise be dropped
// unread. yaml-cpp's own LoadAll loops for ever on a token no document can start with (a ',' at the top
// level, found by fuzzing): a document that starts where the previous one started consumed nothing.
void check_documents(const std::string& text, const std::string& name, const std::string& what) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentWalker walker;
  bool first = true;
  std::size_t last_pos = 0;
  while (parser.HandleNextDocument(walker)) {
    if (!first && walker.start_pos == last_pos) {
      const std::size_t pos = std::min(walker.start_pos, text.size());
      const char c = pos < text.size() ? text[pos] : '?';
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
      throw InputError(fmt::format("{}:{}: not valid YAML: '{}' cannot start a value here", name, line, c));
    }
    if (walker.extra_content_line)
      throw InputError(fmt::format("{}:{}: a second YAML document (after '---'); {}", name,
                                   walker.extra_content_line, what));
    first = false;
    last_pos = walker.start_pos;
  }
}

}  // namespace

YAML::Node load_one_yaml_document(const std::string& text, const std::string& name, const std::string& what) {
  check_yaml_text(text, name);
  try {
    check_documents(text, name, what);
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.msg));
  }
}

}  // namespace netasic
