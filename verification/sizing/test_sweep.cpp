// `netasic sweep`: bad sweep files stop before any point runs, naming the key; points run as their own
// processes; rerunning skips finished points; failed points are reported and do not stop the sweep;
// --report knee; `netasic size` and `netasic plot` from the command line. Tiny fabrics only.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include "tb/sizing/sweep.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {
namespace {

struct Result {
  int status;
  std::string output;
};

Result cmd(const std::string& args) {
  const std::string c = std::string(NETASIC_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(c.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

fs::path tmp(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("netasic-sweep-" + std::to_string(getpid())) / name;
  fs::create_directories(p.parent_path());
  return p;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p = tmp(name);
  std::ofstream(p) << text;
  return p;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// 16 hosts (k=4), 64 KiB permutation: well under a second per point.
const std::string kTiny =
    "set:\n  topology.fat_tree.k: 4\n  workload.size_bytes: 65536\n  routing.policy: flowcut\n";

void expect_bad(const std::string& name, const std::string& text, const std::string& needle) {
  const fs::path f = write(name + ".yaml", text);
  const fs::path out = tmp(name + "-out");
  const Result r = cmd("sweep " + f.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.output;
  EXPECT_FALSE(fs::exists(out / "points")) << "a point ran or was prepared before validation finished";
}

TEST(Sweep, BadFilesFailBeforeAnyPointNamingTheKey) {
  expect_bad("unknown", kTiny + "grid:\n  flowcut.table.entriez: [16, 32]\n", "flowcut.table.entriez");
  expect_bad("unknown-set", "set:\n  workload.lod: 0.5\ngrid:\n  flowcut.table.entries: [16]\n", "workload.lod");
  expect_bad("empty-list", kTiny + "grid:\n  flowcut.table.entries: []\n", "flowcut.table.entries");
  expect_bad("empty-grid", kTiny, "empty grid");
  expect_bad("non-numeric", kTiny + "grid:\n  flowcut.table.entries: [16, lots]\n", "flowcut.table.entries");
  expect_bad("out-of-range", kTiny + "grid:\n  workload.load: [0.5, 2]\n", "workload.load");
  expect_bad("bad-choice", kTiny + "grid:\n  routing.policy: [ecmp, teleport]\n", "routing.policy");
  expect_bad("zip-lengths", kTiny + "zip:\n  workload.load: [0.2, 0.4]\n  workload.duration_us: [10]\n",
             "workload.duration_us");
  expect_bad("bad-seeds", kTiny + "grid:\n  flowcut.table.entries: [16]\nseeds: [1, x]\n", "seeds");
  expect_bad("bad-section", kTiny + "grdi:\n  flowcut.table.entries: [16]\n", "grdi");
}

TEST(Sweep, KneeNeedsASweptSizeKey) {
  const fs::path f = write("knee-nosize.yaml", kTiny + "grid:\n  workload.size_bytes: [4096, 8192]\n");
  const Result r = cmd("sweep " + f.string() + " --report knee --out " + tmp("knee-nosize-out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("size_key"), std::string::npos) << r.output;
}

TEST(Sweep, GridZipAndSeedsExpand) {
  const fs::path f = write("expand.yaml", kTiny +
                                              "grid:\n  flowcut.table.entries: [16, 64, 256]\n"
                                              "zip:\n  workload.size_bytes: [4096, 8192]\n  nic.mtu_bytes: [1024, 2048]\n"
                                              "seeds: 2\n");
  const SweepSpec s = load_sweep(f.string());
  EXPECT_EQ(s.points.size(), 3u * 2 * 2);
  EXPECT_EQ(s.swept_keys, (std::vector<std::string>{"flowcut.table.entries", "workload.size_bytes", "nic.mtu_bytes",
                                                    "sim.seed"}));
  EXPECT_EQ(s.size_key, "flowcut.table.entries");
  EXPECT_EQ(s.points[3].values[1].second, "8192");
  EXPECT_EQ(s.points[3].values[2].second, "2048");
  EXPECT_NE(s.points[0].scenario_yaml.find("flowcut.table.entries: 16"), std::string::npos) << s.points[0].scenario_yaml;
}

TEST(Sweep, RunsResumesAndReportsFailures) {
  const fs::path out = tmp("resume-out");
  const fs::path f = write("resume.yaml", kTiny + "grid:\n  flowcut.table.entries: [16, 64]\nseeds: [1, 2]\n");
  Result r = cmd("sweep " + f.string() + " -j 2 --report knee --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 points: 4 run now, 0 skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("knee"), std::string::npos) << r.output;
  const std::string csv = slurp(out / "results.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("point,hash,flowcut.table.entries,sim.seed,status,flows_completed,flows_count,fct_avg_ns,"
                         "fct_p99_ns,ooo_fraction,flowcut_high_water,flowcut_overflows,letflow_high_water,"
                         "drain_fraction,sim_time_ns,wall_seconds,slowdown_avg,slowdown_p50,slowdown_p99,",
                         0),
            0u)
      << header;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5) << csv;
  // Every row's slowdown and summary metrics are its point's summary.json figures.
  {
    std::istringstream in(csv);
    std::string line;
    auto split = [](const std::string& l) {
      std::vector<std::string> v;
      std::string cell;
      std::istringstream cells(l);
      while (std::getline(cells, cell, ',')) v.push_back(cell);
      if (!l.empty() && l.back() == ',') v.push_back("");
      return v;
    };
    std::getline(in, line);
    const std::vector<std::string> cols = split(line);
    auto col = [&](const std::string& name) {
      const auto it = std::find(cols.begin(), cols.end(), name);
      EXPECT_NE(it, cols.end()) << name << " missing from " << line;
      return static_cast<std::size_t>(it - cols.begin());
    };
    const std::size_t c_hash = col("hash"), c_sd99 = col("slowdown_p99"), c_m99 = col("summary.flows.slowdown.p99"),
                      c_drop = col("summary.packets.dropped");
    EXPECT_EQ(std::find(cols.begin(), cols.end(), "summary.scenario.sim.seed"), cols.end()) << line;
    int rows = 0;
    while (std::getline(in, line)) {
      const std::vector<std::string> v = split(line);
      ASSERT_EQ(v.size(), cols.size()) << line;
      const auto j = nlohmann::json::parse(slurp(out / "points" / v[c_hash] / "summary.json"));
      EXPECT_DOUBLE_EQ(std::stod(v[c_sd99]), j["flows"]["slowdown"]["p99"].get<double>()) << line;
      EXPECT_DOUBLE_EQ(std::stod(v[c_m99]), j["flows"]["slowdown"]["p99"].get<double>()) << line;
      EXPECT_EQ(std::stoull(v[c_drop]), j["packets"]["dropped"].get<std::uint64_t>()) << line;
      ++rows;
    }
    EXPECT_EQ(rows, 4);
  }
  EXPECT_TRUE(fs::exists(out / "results.sqlite"));
  EXPECT_TRUE(fs::exists(out / "knee.csv"));

  // Rerun: nothing runs again.
  r = cmd("sweep " + f.string() + " -j 2 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 points: 0 run now, 4 skipped"), std::string::npos) << r.output;
  EXPECT_EQ(slurp(out / "results.csv"), csv);

  // Points finished outside the sweep (another scheduler) leave exit 0, a summary and the same scenario:
  // they count as done too.
  for (const auto& d : fs::directory_iterator(out / "points")) fs::remove(d.path() / "done.json");
  r = cmd("sweep " + f.string() + " -j 2 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 points: 0 run now, 4 skipped"), std::string::npos) << r.output;

  // Grow the grid: only the new points run.
  const fs::path g = write("resume.yaml", kTiny + "grid:\n  flowcut.table.entries: [16, 64, 256]\nseeds: [1, 2]\n");
  r = cmd("sweep " + g.string() + " -j 2 --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("6 points: 2 run now, 4 skipped"), std::string::npos) << r.output;
}

TEST(Sweep, FailedPointIsRetriedReportedAndDoesNotStopTheSweep) {
  // A 4-port switch limit is fine for k=4; an input buffer smaller than one packet fails at build time
  // (exit 2 from `netasic run`), which the sweep cannot know before running.
  const fs::path out = tmp("fail-out");
  const fs::path f =
      write("fail.yaml", kTiny + "grid:\n  switch.input_buffer_bytes: [1024, 131072]\n  nic.mtu_bytes: [4096]\n");
  const Result r = cmd("sweep " + f.string() + " -j 2 --out " + out.string());
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_NE(r.output.find("retrying"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAILED after 2 attempts"), std::string::npos) << r.output;
  const std::string csv = slurp(out / "results.csv");
  EXPECT_NE(csv.find(",failed,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",done,"), std::string::npos) << csv;
}

TEST(Sweep, KneeReport) {
  std::vector<std::map<std::string, std::string>> rows = {
      {{"flowcut.table.entries", "16"}, {"workload.load", "0.5"}, {"fct_p99_ns", "200"}, {"status", "done"}},
      {{"flowcut.table.entries", "64"}, {"workload.load", "0.5"}, {"fct_p99_ns", "104"}, {"status", "done"}},
      {{"flowcut.table.entries", "256"}, {"workload.load", "0.5"}, {"fct_p99_ns", "100"}, {"status", "done"}},
      {{"flowcut.table.entries", "16"}, {"workload.load", "0.8"}, {"fct_p99_ns", "300"}, {"status", "done"}},
      {{"flowcut.table.entries", "64"}, {"workload.load", "0.8"}, {"fct_p99_ns", "110"}, {"status", "done"}},
      {{"flowcut.table.entries", "256"}, {"workload.load", "0.8"}, {"fct_p99_ns", "100"}, {"status", "done"}},
      // 16 entries within 5% by chance, 64 not: the knee is 256, every size from it up is within 5%.
      {{"flowcut.table.entries", "16"}, {"workload.load", "0.9"}, {"fct_p99_ns", "101"}, {"status", "done"}},
      {{"flowcut.table.entries", "64"}, {"workload.load", "0.9"}, {"fct_p99_ns", "106"}, {"status", "done"}},
      {{"flowcut.table.entries", "256"}, {"workload.load", "0.9"}, {"fct_p99_ns", "100"}, {"status", "done"}},
  };
  const auto k = knee_report({"flowcut.table.entries", "workload.load"}, "flowcut.table.entries", rows);
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].group, "workload.load=0.5");
  EXPECT_EQ(k[0].knee, "64");
  EXPECT_EQ(k[1].knee, "256");
  EXPECT_EQ(k[2].knee, "256");
}

TEST(SizeCli, TableJsonSeriesAndBadKey) {
  Result r = cmd("size hosts=1024 link_gbps=200");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("ingress_only"), std::string::npos) << r.output;
  r = cmd("size --json --set latency_us=4.096 --set key_bytes=0");
  ASSERT_EQ(r.status, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_NEAR(j["active_flows"].get<double>(), 1024 * 25.0, 1e-6);
  r = cmd("size --vs latency_us=1,2,4");
  ASSERT_EQ(r.status, 0) << r.output;
  r = cmd("size hostz=3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("hostz"), std::string::npos) << r.output;
  r = cmd("size --vs mtu_bytes=abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("mtu_bytes"), std::string::npos) << r.output;
}

TEST(PlotCli, WritesAPngAndRejectsUnknownColumns) {
  const fs::path csv = write("plot.csv",
                             "point,hash,flowcut.table.entries,workload.load,status,fct_p99_ns\n"
                             "0,a,16,0.5,done,2000\n1,b,64,0.5,done,1500\n2,c,16,0.8,done,3000\n3,d,64,0.8,done,1800\n");
  const fs::path png = tmp("plot.png");
  Result r = cmd("plot " + csv.string() + " --x flowcut.table.entries --y fct_p99_ns --series workload.load --out " +
                 png.string());
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_TRUE(fs::exists(png));
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
  r = cmd("plot " + csv.string() + " --x flowcut.table.entries --y fct_p98_ns --out " + png.string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("fct_p98_ns"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace netasic::sizing

namespace netasic::sizing {
namespace {

// Runs `script` in bash; its output and exit status.
Result bash(const std::string& script) {
  const fs::path s = write("script.sh", script);
  FILE* pipe = popen(("bash " + s.string() + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

// Two long points (several seconds each); SIGTERM to the sweep stops both points' processes with it.
TEST(SweepSafety, StoppingTheSweepStopsItsRunningPoints) {
  const fs::path f = write("long.yaml", "set:\n  topology.fat_tree.k: 16\n  workload.size_bytes: 16777216\n"
                                        "grid:\n  routing.policy: [ecmp, spray]\n");
  const fs::path out = tmp("long-out");
  const Result r = bash(std::string(NETASIC_BINARY) + " sweep " + f.string() + " -j 2 --out " + out.string() +
                        " & pid=$!\n"
                        "for i in $(seq 2400); do [ $(ls " + out.string() + "/points/*/RUNNING 2>/dev/null | wc -l) = 2 ] && break; sleep 0.05; done\n"
                        "kill -TERM $pid; wait $pid; echo sweep_status=$?\n"
                        "sleep 0.5; pgrep -f -- '--out " + out.string() + "/points' && echo LEFT_RUNNING || echo none_left\n");
  EXPECT_NE(r.output.find("sweep_status=143"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("none_left"), std::string::npos) << r.output;
  int interrupted = 0;
  for (const auto& d : fs::directory_iterator(out / "points")) interrupted += fs::exists(d.path() / "INTERRUPTED");
  EXPECT_EQ(interrupted, 2);
}

// A point locked by another process (a first sweep's point still running) is never run again at once.
TEST(SweepSafety, AResumeRefusesAPointAnotherProcessIsRunning) {
  const fs::path f = write("locked.yaml", kTiny + "grid:\n  flowcut.table.entries: [16]\n");
  const fs::path out = tmp("locked-out");
  Result r = cmd("sweep " + f.string() + " --dry-run");
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string hash = r.output.substr(2, r.output.find(' ', 2) - 2);  // "0 <hash> ..."
  const fs::path point = out / "points" / hash;
  fs::create_directories(point);
  // The other process holds the lock before the sweep starts (waited for, not assumed after a fixed delay).
  const std::string lock = (point / "LOCK").string();
  r = bash("flock " + lock + " sleep 3 &\nfor i in $(seq 200); do flock -n " + lock +
           " true || break; sleep 0.01; done\n" + NETASIC_BINARY + " sweep " + f.string() + " --out " + out.string() +
           "; echo status=$?\nwait\n");
  EXPECT_NE(r.output.find("status=2"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("point 0 (" + hash + ") is being run by another process"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(point / "summary.json"));
  // Once the other process is gone, the same command runs it.
  r = cmd("sweep " + f.string() + " --out " + out.string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(point / "summary.json"));
}

}  // namespace
}  // namespace netasic::sizing
