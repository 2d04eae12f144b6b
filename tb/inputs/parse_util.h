// Shared plumbing of the input-file parsers (internal to netasic_inputs). Every parser reports errors the
// same way, "<file>:<line>: what is wrong; what is accepted", so the helpers here take the file name and
// line number and build that prefix; a parser never formats a location by hand.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tlm/common/error.h"

namespace netasic::input_detail {

// One line that carries data: blank lines and lines whose first non-blank character is '#' never
// reach a parser, so line numbers still refer to the file as the user sees it.
struct DataLine {
  int number = 0;
  std::vector<std::string_view> fields;
};

struct TextLines {
  std::vector<DataLine> lines;
  int last_line = 1;  // number of the file's last line: where "the file ends too early" is reported
};

// Views into `text`, which must outlive the result.
TextLines split_data_lines(std::string_view text);

// Whole file contents; InputError "<path>: cannot open <what>: <reason>" otherwise.
std::string read_text_file(const std::string& path, std::string_view what);

// A token as it may be shown in a message: bytes that are not printable ASCII become \xNN and a long
// token is cut, so a binary file given by mistake yields a readable message, not terminal garbage.
std::string quoted(std::string_view token);

template <typename... Args>
[[noreturn]] void fail(const std::string& file, int line, fmt::format_string<Args...> format, Args&&... args) {
  throw InputError(fmt::format("{}:{}: {}", file, line, fmt::format(format, std::forward<Args>(args)...)));
}

// HPCC's readers read the declared number of lines and never look further; files published with HPCC
// carry notes there. Warns (stderr) that the `rest` lines from line `line` on are ignored, after the
// `count` `items` ("links", "flows") that line `header_line` declares.
void warn_ignored_tail(const std::string& file, int line, std::size_t rest, std::uint64_t count,
                       std::string_view items, int header_line);

// Whole number in 0..max. `what` names the field in the message ("node_count", "link src").
std::uint64_t parse_uint_field(const std::string& file, int line, std::string_view token, std::string_view what,
                               std::uint64_t max);

// Finite decimal number (no unit).
double parse_double_field(const std::string& file, int line, std::string_view token, std::string_view what);

// Splits "100Gbps" into its leading number and the unit that follows. Returns false if the token does
// not start with a number.
bool split_number_unit(std::string_view token, double& value, std::string_view& unit);

// "1st", "2nd", "3rd", "4th", ...: field positions in messages.
std::string ordinal(std::size_t n);

}  // namespace netasic::input_detail
