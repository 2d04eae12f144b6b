// The output directory's safety rules (docs/reliability.md): checked before the run, results written
// whole or not at all, write errors reported, inputs never overwritten, interrupted runs marked.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace netasic {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status;
  std::string output;
};

Result shell(const std::string& cmd) {
  FILE* pipe = popen(("bash -c '" + cmd + "' 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

fs::path fresh(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("netasic-out-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

const std::string kBin = NETASIC_BINARY;
const std::string kSmall = " run --set topology.fat_tree.k=4 --set workload.size_bytes=65536 --quiet --out ";

TEST(OutputSafety, ARunReplacesThePreviousRunsFilesAndLeavesNoMarker) {
  const fs::path d = fresh("rerun");
  fs::create_directories(d);
  write(d / "trace.json", "from an earlier run with tracing");
  write(d / "INTERRUPTED", "an earlier run was interrupted");
  const Result r = shell(kBin + kSmall + d.string());
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"summary.json", "flows.csv", "fct.txt", "ports.csv", "tables.json"})
    EXPECT_TRUE(fs::exists(d / f)) << f;
  for (const char* f : {"trace.json", "INTERRUPTED", "RUNNING", "flows.csv.tmp"}) EXPECT_FALSE(fs::exists(d / f)) << f;
}

TEST(OutputSafety, AWriteErrorIsExit1NamingTheFileAndNoSummary) {
  const fs::path d = fresh("efbig");
  // A 4 KiB file size limit (SIGXFSZ ignored, so writes fail with EFBIG): flows.csv of 128 flows is larger.
  const Result r = shell("trap \"\" XFSZ; ulimit -f 4; " + kBin + " run --set topology.fat_tree.k=8 --quiet --out " +
                         d.string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("netasic: error: cannot write " + (d / "flows.csv").string() + ": File too large"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("outputs"), std::string::npos) << "no file listed as written: " << r.output;
  EXPECT_FALSE(fs::exists(d / "summary.json"));
  EXPECT_FALSE(fs::exists(d / "flows.csv"));
  EXPECT_FALSE(fs::exists(d / "flows.csv.tmp"));
  EXPECT_FALSE(fs::exists(d / "RUNNING"));
}

TEST(OutputSafety, AnUnusableOutIsBadInputBeforeTheRun) {
  const fs::path file = fresh("afile");
  write(file, "x");
  Result r = shell(kBin + kSmall + file.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--out " + file.string() + ": exists and is not a directory"), std::string::npos) << r.output;
  r = shell(kBin + kSmall + (file / "sub").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("cannot create the directory"), std::string::npos) << r.output;
  if (getuid() != 0) {  // root writes anywhere
    const fs::path ro = fresh("readonly");
    fs::create_directories(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    r = shell(kBin + kSmall + ro.string());
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("cannot write in the directory"), std::string::npos) << r.output;
  }
}

TEST(OutputSafety, AnInputInsideOutIsNeverOverwritten) {
  const fs::path d = fresh("inputs");
  fs::create_directories(d);
  const std::string flows = "1\n0 1 3 100 1000 0\n";
  write(d / "flows.csv", flows);
  const Result r = shell(kBin + " run --set topology.fat_tree.k=4 --set workload.type=file --set workload.file=" +
                         (d / "flows.csv").string() + " --quiet --out " + d.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("workload.file " + (d / "flows.csv").string() + " is the run's output"), std::string::npos)
      << r.output;
  std::ifstream in(d / "flows.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), flows);
}

TEST(OutputSafety, SigtermStopsTheRunAndMarksTheDirectory) {
  const fs::path d = fresh("sigterm");
  // A run of many seconds; SIGTERM once it is under way.
  const Result r = shell(kBin + " run --set topology.fat_tree.k=16 --set workload.size_bytes=16777216 --quiet --out " +
                         d.string() + " & pid=$!; for i in $(seq 2400); do [ -f " + (d / "RUNNING").string() +
                         " ] && break; sleep 0.05; done; sleep 0.5; kill -TERM $pid; wait $pid; echo status=$?");
  EXPECT_NE(r.output.find("status=143"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("interrupted by SIGTERM"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(d / "INTERRUPTED"));
  for (const char* f : {"RUNNING", "summary.json", "flows.csv", "flows.csv.tmp"}) EXPECT_FALSE(fs::exists(d / f)) << f;
}

// A run where nothing can be delivered (a host link that loses all but one packet in ten million, and a
// transport that resends for ever) stops at the watchdog instead of running for ever: exit 3, outputs written.
TEST(RunControl, ARunThatCannotProgressStopsAtTheWatchdog) {
  const fs::path d = fresh("stall");
  fs::create_directories(d);
  write(d.string() + "-topo.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0.9999999\n1 2 100Gbps 1000ns 0\n");
  const Result r = shell("timeout 60 " + kBin + " run --set topology.type=file --set topology.file=" + d.string() +
                         "-topo.txt --set nic.transport=gbn --set sim.stall_timeout_us=2000 --quiet --out " + d.string());
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("no byte was delivered for 2000 us of simulated time (sim.stall_timeout_us)"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(d / "flows.csv"));
  EXPECT_FALSE(fs::exists(d / "RUNNING"));
}

// The largest flows the keys accept under a short time limit: memory follows what the flows send, not their
// size (128 flows of 1 TB were 7.6 GB of per-packet bits before the first event). Under a 1 GB address-space
// limit the run completes.
TEST(RunControl, HugeFlowsUnderATimeLimitNeedNoMemoryUpFront) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: an address-space limit cannot apply";
#endif
  const fs::path d = fresh("huge");
  const Result r = shell("ulimit -v 1000000; " + kBin +
                         " run --set workload.size_bytes=1000000000000 --set sim.max_time_us=10 --quiet --out " +
                         d.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(d / "summary.json"));
}

// A flow file declaring 0 flows is valid (docs/input-files.md): an empty run, exit 0.
TEST(RunControl, AFlowFileWithNoFlowsRunsEmpty) {
  const fs::path d = fresh("noflows");
  fs::create_directories(d);
  write(d.string() + "-flows.txt", "0\n");
  const Result r = shell(kBin + " run --set topology.fat_tree.k=4 --set workload.type=file --set workload.file=" +
                         d.string() + "-flows.txt --quiet --out " + d.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("flows completed              0 / 0"), std::string::npos) << r.output;
  std::ifstream in(d / "flows.csv");
  std::string header, row;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("id,src,dst", 0), 0u);
  EXPECT_FALSE(static_cast<bool>(std::getline(in, row))) << row;
}

}  // namespace
}  // namespace netasic
