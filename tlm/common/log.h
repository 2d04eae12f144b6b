// The one logger. Levels: error, warn, info, debug, trace. Output goes to stderr, never stdout (stdout
// carries the run summary). Debug output in the hot path is guarded by log_enabled() so it costs a
// branch when off.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace netasic {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };

void set_log_level(LogLevel level);
LogLevel log_level();
inline bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(log_level()); }
void log_write(LogLevel level, std::string_view message);

template <typename... Args>
void log(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (log_enabled(level)) log_write(level, fmt::format(format, std::forward<Args>(args)...));
}

// Parses "error", "warn", "info", "debug", "trace"; throws InputError otherwise.
LogLevel parse_log_level(std::string_view name);

}  // namespace netasic
