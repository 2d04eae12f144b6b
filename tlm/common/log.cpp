#include "tlm/common/log.h"

#include <cstdio>

#include "tlm/common/error.h"

namespace netasic {
namespace {
LogLevel g_level = LogLevel::warn;
constexpr const char* kNames[] = {"error", "warn", "info", "debug", "trace"};
}  // namespace

void set_log_level(LogLevel level) { g_level = level; }
LogLevel log_level() { return g_level; }

void log_write(LogLevel level, std::string_view message) {
  std::fprintf(stderr, "netasic [%s] %.*s\n", kNames[static_cast<int>(level)], static_cast<int>(message.size()),
               message.data());
}

LogLevel parse_log_level(std::string_view name) {
  for (int i = 0; i <= 4; ++i)
    if (name == kNames[i]) return static_cast<LogLevel>(i);
  throw InputError(fmt::format("unknown log level '{}': accepted error, warn, info, debug, trace", name));
}

}  // namespace netasic
