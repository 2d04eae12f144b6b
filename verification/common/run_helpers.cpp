#include "verification/common/run_helpers.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace netasic::test {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace netasic::test
