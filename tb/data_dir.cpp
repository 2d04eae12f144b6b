#include "tb/data_dir.h"

namespace netasic {

std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const fs::path bin = exe.parent_path();
  // NETASIC_DATA_FROM_BIN: share/netasic relative to the installed binary's directory (set by CMake from
  // the install directories, e.g. "../share/netasic").
  for (const fs::path& d : {bin / "share" / "netasic", bin / NETASIC_DATA_FROM_BIN})
    if (fs::is_directory(d, ec)) return d.lexically_normal();
  return {};
}

}  // namespace netasic
