#include "tb/inputs/parse_util.h"

#include "tlm/common/log.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace netasic::input_detail {

namespace {
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
}  // namespace

TextLines split_data_lines(std::string_view text) {
  TextLines out;
  int number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;

    DataLine data{number, {}};
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) break;
      if (data.fields.empty() && line[i] == '#') break;  // comment line
      const std::size_t start = i;
      while (i < line.size() && !is_blank(line[i])) ++i;
      data.fields.push_back(line.substr(start, i - start));
    }
    if (!data.fields.empty()) out.lines.push_back(std::move(data));
  }
  out.last_line = number > 0 ? number : 1;
  return out;
}

std::string read_text_file(const std::string& path, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: cannot open {}: it is a directory, not a file", path, what));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open {}: {}", path, what, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: cannot read {}", path, what));
  return buffer.str();
}

std::string quoted(std::string_view token) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (token.size() > kMaxShown) out += "...";
  out += "'";
  return out;
}

std::uint64_t parse_uint_field(const std::string& file, int line, std::string_view token, std::string_view what,
                               std::uint64_t max) {
  std::uint64_t value = 0;
  const char* first = token.data();
  const char* last = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec == std::errc() && ptr == last && value <= max) return value;
  if (max == std::numeric_limits<std::uint64_t>::max())
    fail(file, line, "{} must be a non-negative whole number, got {}", what, quoted(token));
  fail(file, line, "{} must be a whole number in 0..{}, got {}", what, max, quoted(token));
}

double parse_double_field(const std::string& file, int line, std::string_view token, std::string_view what) {
  double value = 0;
  const char* last = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), last, value);
  if (ec == std::errc::invalid_argument || ptr != last)
    fail(file, line, "{} must be a number, got {}", what, quoted(token));
  if (ec != std::errc() || !std::isfinite(value))
    fail(file, line, "{} must be a finite number, got {}", what, quoted(token));
  return value;
}

bool split_number_unit(std::string_view token, double& value, std::string_view& unit) {
  const char* last = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), last, value);
  if (ec != std::errc()) return false;
  unit = token.substr(static_cast<std::size_t>(ptr - token.data()));
  return true;
}

std::string ordinal(std::size_t n) {
  const char* suffix = "th";
  if (n % 100 < 11 || n % 100 > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return fmt::format("{}{}", n, suffix);
}

void warn_ignored_tail(const std::string& file, int line, std::size_t rest, std::uint64_t count,
                       std::string_view items, int header_line) {
  log(LogLevel::warn, "{}:{}: {} line{} after the {} {} that line {} declares {} ignored (as HPCC's reader does)", file,
      line, rest, rest == 1 ? "" : "s", count, items, header_line, rest == 1 ? "is" : "are");
}

}  // namespace netasic::input_detail
