// `netasic size --silicon`: the points and fits embedded in tb/sizing/silicon.cpp against the synthesis
// results they come from (docs/synthesis_sweep.json and the tables of docs/synthesis.md, read here at test
// time so the constants cannot drift from them), the estimate between and beyond the points, and the bad
// inputs.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "tb/sizing/cli.h"
#include "tb/sizing/silicon.h"
#include "tlm/common/error.h"

namespace netasic::sizing {
namespace {

const std::string kSource = NETASIC_SOURCE_DIR;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const SynthPoint* point(const SiliconBlock& b, double n) {
  for (const auto& p : b.points)
    if (p.entries == n) return &p;
  return nullptr;
}

double number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  return std::stod(text);
}

// Least squares y = sum_k coef_k f_k(n) by the normal equations (at most 3 terms here).
std::vector<double> least_squares(const std::vector<std::pair<double, double>>& pts,
                                  const std::vector<double (*)(double)>& terms) {
  const std::size_t k = terms.size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0));
  for (const auto& [n, y] : pts)
    for (std::size_t i = 0; i < k; ++i) {
      for (std::size_t j = 0; j < k; ++j) m[i][j] += terms[i](n) * terms[j](n);
      m[i][k] += terms[i](n) * y;
    }
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t r = i + 1; r < k; ++r) {
      const double f = m[r][i] / m[i][i];
      for (std::size_t c = i; c <= k; ++c) m[r][c] -= f * m[i][c];
    }
  }
  std::vector<double> x(k);
  for (std::size_t i = k; i-- > 0;) {
    double v = m[i][k];
    for (std::size_t j = i + 1; j < k; ++j) v -= m[i][j] * x[j];
    x[i] = v / m[i][i];
  }
  return x;
}

double one(double) { return 1; }
double lin(double n) { return n; }
double lg(double n) { return std::log2(n); }

// Measured rows of the size sweep: block name in the JSON -> silicon block.
const std::map<std::string, std::string> kJsonBlocks = {
    {"flowlet_table", "flowlet"},
    {"flowcut_table hashed 4-way", "flowcut_hashed"},
    {"flowcut_table CAM", "flowcut_cam"}};

TEST(SizeSilicon, PointsAndFitsReproduceTheSweepJson) {
  const nlohmann::json j = nlohmann::json::parse(read_text(kSource + "/docs/synthesis_sweep.json"));
  int checked = 0;
  for (const auto& row : j.at("rows")) {
    const std::string name = row[0].get<std::string>(), how = row[3].get<std::string>();
    const double n = row[1].get<double>();
    const nlohmann::json& r = row[2];
    if (how == "extrapolated") continue;
    const SiliconBlock& b = silicon_block(kJsonBlocks.at(name));
    const SynthPoint* p = point(b, n);
    ASSERT_NE(p, nullptr) << name << " " << n;
    const double gates = r.at("nand2_equivalent").get<double>(), flops = r.at("flip_flops").get<double>();
    // Flip-flops and memory are exact: the points, the formulas and the RTL bits per entry.
    EXPECT_EQ(p->flip_flops, flops) << name << " " << n;
    EXPECT_NEAR(b.flops(n), flops, 1e-9) << name << " " << n;
    EXPECT_EQ(estimate(b, n).memory_bits.value, r.at("memory_bits").get<double>()) << name << " " << n;
    // Gates: the embedded point is the JSON's. The hashed table's fit is within 10% of it: ABC moves that
    // block's gates by up to 10% between sizes and equivalent inputs (docs/synthesis.md).
    EXPECT_NEAR(p->nand2, gates, 0.5) << name << " " << n;
    if (b.name == "flowcut_hashed") {
      EXPECT_NEAR(b.gates(n), gates, 0.10 * gates) << n;
    }
    if (b.name == "flowlet") {
      EXPECT_NEAR(b.gates(n), gates, 0.0025 * gates) << n;  // largest 0.22%
    }
    if (b.name == "flowcut_cam") {
      // The sweep's fit, over 256 .. 2,048 entries: within 0.001% there; below it overestimates the small
      // tables, where the fixed operation unit weighs more (7.9% at 16 entries, 0.47% at 128).
      EXPECT_NEAR(b.gates(n), gates, (n >= 256 ? 1e-5 : 0.0791) * gates) << n;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 18);
  const nlohmann::json& fit = j.at("cam_fit");
  const Fit& g = silicon_block("flowcut_cam").gates;
  EXPECT_DOUBLE_EQ(g.a, fit.at("gates_a").get<double>());
  EXPECT_DOUBLE_EQ(g.b, fit.at("gates_b").get<double>());
  EXPECT_DOUBLE_EQ(g.d, fit.at("gates_c").get<double>());
}

// The rows of docs/synthesis.md: the size sweep table (block | entries | gates | flip-flops | memory | how)
// and the timing table (block | N entries | gates | memory bits | logic depth | ...).
struct DocsPoints {
  std::map<std::string, std::map<double, std::array<double, 3>>> sweep;  // gates, flip-flops, memory bits
  std::map<std::string, std::map<double, std::array<double, 3>>> timing;  // gates, memory bits, depth
};

DocsPoints docs_points() {
  const std::map<std::string, std::string> blocks = {{"flowlet_table", "flowlet"},
                                                     {"flowcut_table hashed 4-way", "flowcut_hashed"},
                                                     {"flowcut_table CAM", "flowcut_cam"},
                                                     {"flowsail", "flowsail"}};
  DocsPoints d;
  std::istringstream text(read_text(kSource + "/docs/synthesis.md"));
  const std::regex sweep_row(R"(^\| ([^|]+) \| (\d+) \| ([\d,.]+)[^|]* \| ([\d,]+) \| ([\d,]+) \| measured)");
  const std::regex timing_row(R"(^\| ([^|]+) \| ([^|]+) \| ([\d,]+) \| ([\d,]+) \| (\d+) \|)");
  const std::regex entries(R"(([\d,]+) entries)");
  std::string line;
  while (std::getline(text, line)) {
    std::smatch m, e;
    if (std::regex_search(line, m, sweep_row) && blocks.count(m[1])) {
      d.sweep[blocks.at(m[1])][number(m[2])] = {number(m[3]), number(m[4]), number(m[5])};
    } else if (std::regex_search(line, m, timing_row) && blocks.count(m[1])) {
      const std::string params = m[2];
      double n = 0;
      if (std::regex_search(params, e, entries)) n = number(e[1]);
      else if (m[1] == "flowsail" && params.rfind("defaults", 0) == 0) n = 1024;  // NftEntries' default
      if (n > 0) d.timing[blocks.at(m[1])][n] = {number(m[3]), number(m[4]), number(m[5])};
    }
  }
  return d;
}

TEST(SizeSilicon, PointsMatchTheTablesOfSynthesisMd) {
  DocsPoints d = docs_points();
  ASSERT_EQ(d.sweep["flowcut_hashed"].size(), 5u);
  ASSERT_EQ(d.sweep["flowcut_cam"].size(), 8u);  // 16 .. 2,048: ABC and calibrated techmap rows
  for (const auto& [name, rows] : d.sweep)
    for (const auto& [n, v] : rows) {
      const SynthPoint* p = point(silicon_block(name), n);
      ASSERT_NE(p, nullptr) << name << " " << n;
      EXPECT_NEAR(p->nand2, v[0], 0.5) << name << " " << n;  // the table rounds
      EXPECT_EQ(p->flip_flops, v[1]) << name << " " << n;
    }
  // Every depth the blocks hold is a row of the timing table, and every row of it is in the blocks.
  for (const auto& b : silicon_blocks()) {
    const auto& rows = d.timing[b.name];
    int depths = 0;
    for (const auto& p : b.points)
      if (p.depth > 0) {
        ++depths;
        ASSERT_TRUE(rows.count(p.entries)) << b.name << " " << p.entries;
        EXPECT_EQ(p.depth, rows.at(p.entries)[2]) << b.name << " " << p.entries;
        EXPECT_NEAR(p.nand2, rows.at(p.entries)[0], 0.5) << b.name << " " << p.entries;
        EXPECT_EQ(estimate(b, p.entries).memory_bits.value, rows.at(p.entries)[1]) << b.name << " " << p.entries;
      }
    EXPECT_EQ(depths, static_cast<int>(rows.size())) << b.name;
  }
  EXPECT_EQ(d.timing["flowcut_cam"].size(), 5u);  // 8 .. 128 entries
}

// The least-squares fits, recomputed from the embedded points (which the tests above tie to docs/), and
// their largest deviation on those points.
TEST(SizeSilicon, FitsAreTheLeastSquaresOfThePoints) {
  struct Case {
    std::string block, figure;
    double max_deviation;  // on the measured points, in the figure's unit
  };
  for (const Case& c : {Case{"flowcut_hashed", "gates", 547}, Case{"flowlet", "gates", 29},
                        Case{"flowsail", "gates", 249}, Case{"flowcut_hashed", "depth", 1.01},
                        Case{"flowlet", "depth", 2.81}, Case{"flowsail", "depth", 0.75},
                        Case{"flowcut_cam", "depth", 2.21}}) {
    const SiliconBlock& b = silicon_block(c.block);
    const bool depth = c.figure == "depth";
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : b.points)
      if ((depth ? p.depth : p.nand2) > 0) pts.emplace_back(p.entries, depth ? p.depth : p.nand2);
    const Fit& fit = depth ? b.depth : b.gates;
    const std::vector<double> x = least_squares(pts, {one, lg});
    EXPECT_NEAR(fit.a, x[0], 1e-6 * std::max(1.0, std::fabs(x[0]))) << c.block << " " << c.figure;
    EXPECT_NEAR(fit.c, x[1], 1e-6 * std::max(1.0, std::fabs(x[1]))) << c.block << " " << c.figure;
    EXPECT_EQ(fit.b, 0);
    EXPECT_EQ(fit.d, 0);
    double worst = 0;
    for (const auto& [n, y] : pts) worst = std::max(worst, std::fabs(fit(n) - y));
    EXPECT_LE(worst, c.max_deviation) << c.block << " " << c.figure;
    EXPECT_GE(worst, 0.9 * c.max_deviation) << c.block << " " << c.figure << ": the stated deviation is stale";
  }
  // The CAM's depth grows per doubling of its entries (tree-shaped encoders), so its fit has no term in n:
  // adding one (a + b n + c log2(n)) brings the largest deviation on its points down by under 0.3 level.
  // (The earlier loop-coded encoders grew by about one level per entry; such a term then removed 18.)
  std::vector<std::pair<double, double>> cam;
  for (const auto& p : silicon_block("flowcut_cam").points)
    if (p.depth > 0) cam.emplace_back(p.entries, p.depth);
  const auto worst_of = [&](const std::vector<double (*)(double)>& basis) {
    const std::vector<double> x = least_squares(cam, basis);
    double worst = 0;
    for (const auto& [n, y] : cam) {
      double f = 0;
      for (std::size_t i = 0; i < basis.size(); ++i) f += x[i] * basis[i](n);
      worst = std::max(worst, std::fabs(f - y));
    }
    return worst;
  };
  EXPECT_LT(worst_of({one, lg}) - worst_of({one, lin, lg}), 0.3);
  // Flip-flop formulas pass through every point.
  for (const auto& b : silicon_blocks())
    for (const auto& p : b.points) EXPECT_NEAR(b.flops(p.entries), p.flip_flops, 1e-9) << b.name << " " << p.entries;
}

TEST(SizeSilicon, MeasuredInterpolatedExtrapolated) {
  const SiliconBlock& hashed = silicon_block("flowcut_hashed");
  const SiliconRow at4k = estimate(hashed, 4096);
  EXPECT_EQ(at4k.nand2.how, "measured");
  EXPECT_EQ(at4k.memory_bits.value, 4096 * 194);
  EXPECT_EQ(at4k.depth.value, 72);
  EXPECT_EQ(at4k.clock_ps, 72 * 14 + 42);
  EXPECT_NEAR(at4k.fmax_mhz, 1e6 / 1050, 1e-9);
  // Between 4,096 and 16,384 entries: half way in log2(entries).
  const SiliconRow at8k = estimate(hashed, 8192);
  EXPECT_EQ(at8k.nand2.how.rfind("interpolated between 4,096 and 16,384", 0), 0u) << at8k.nand2.how;
  EXPECT_NEAR(at8k.nand2.value, (14152 + 15727) / 2.0, 1e-9);
  EXPECT_EQ(at8k.flip_flops.value, 363);
  // Beyond the measured range: the fit, said so.
  const SiliconRow at1m = estimate(hashed, 1 << 20);
  EXPECT_EQ(at1m.nand2.how.rfind("extrapolated beyond the measured 256 .. 65,536 entries", 0), 0u) << at1m.nand2.how;
  EXPECT_NEAR(at1m.nand2.value, hashed.gates(1 << 20), 1e-9);
  // The CAM: its entries are flip-flops, no RAM; per entry it scales linearly between points.
  const SiliconBlock& cam = silicon_block("flowcut_cam");
  const SiliconRow c2k = estimate(cam, 2048);
  EXPECT_EQ(c2k.memory_bits.value, 0);
  EXPECT_EQ(c2k.nand2.how, "measured (techmap flow, calibrated)");
  EXPECT_EQ(c2k.flip_flops.how, "measured (techmap flow)");
  const SiliconRow c4k = estimate(cam, 4096);
  EXPECT_EQ(c4k.nand2.how.rfind("extrapolated beyond the measured 8 .. 2,048 entries", 0), 0u) << c4k.nand2.how;
  EXPECT_NEAR(c4k.nand2.value, cam.gates(4096), 1e-9);
  EXPECT_EQ(c4k.flip_flops.value, 194 * 4096 + 299 + 2 * 12);
  EXPECT_EQ(c4k.depth.how.rfind("extrapolated beyond the measured 8 .. 128 entries", 0), 0u);
  EXPECT_EQ(estimate(cam, 16384).flip_flops.value, 194 * 16384 + 299 + 2 * 14);
  EXPECT_FALSE(estimate(cam, 131072).refused.empty());  // the CAM RTL stops at 65,536 entries
  EXPECT_TRUE(estimate(silicon_block("flowlet"), 1 << 20).refused.empty());
  EXPECT_EQ(estimate(silicon_block("flowsail"), 1024).memory_bits.value, 86528);  // docs/synthesis.md
}

TEST(SizeSilicon, RowsFromTheAnalyticEntries) {
  SizeInputs in;  // defaults: 245 ingress entries, 31,250 full-switch and flowlet, 44,643 FlowSail
  const SizeResult r = compute(in);
  const std::vector<SiliconRow> rows = silicon_rows(r, std::nullopt);
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0].block, "flowcut_hashed");
  EXPECT_EQ(rows[0].sized_from, "ingress_only");
  EXPECT_EQ(rows[0].wanted, 245);
  EXPECT_EQ(rows[0].entries, 256);
  EXPECT_EQ(rows[1].block, "flowcut_cam");
  EXPECT_EQ(rows[1].entries, 256);
  EXPECT_EQ(rows[2].sized_from, "full_switch");
  EXPECT_EQ(rows[2].entries, 32768);
  EXPECT_EQ(rows[4].block, "flowlet");
  EXPECT_EQ(rows[4].entries, 32768);
  EXPECT_EQ(rows[5].block, "flowsail");
  EXPECT_EQ(rows[5].entries, 65536);
  const std::vector<SiliconRow> given = silicon_rows(r, 4096.0);
  ASSERT_EQ(given.size(), 4u);
  for (const auto& row : given) EXPECT_EQ(row.entries, 4096);
  const nlohmann::json j = silicon_json(given);
  EXPECT_EQ(j["rows"][0]["nand2_equivalent"]["value"], 14152);
  EXPECT_EQ(j["rows"][0]["logic_depth"]["how"], "measured");
  EXPECT_TRUE(j["rows"][0]["clock_excludes_ram_access"].get<bool>());
}

std::string entries_error(const std::string& text) {
  try {
    parse_silicon_entries(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string command_error(const std::string& args) {
  CLI::App app;
  auto commands = add_commands(app);
  app.parse(args, false);
  try {
    commands->run();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SizeSilicon, BadEntriesNameTheKeyAndTheRule) {
  EXPECT_EQ(parse_silicon_entries("4096"), 4096);
  EXPECT_EQ(parse_silicon_entries("8"), 8);
  EXPECT_EQ(parse_silicon_entries("1048576"), 1 << 20);
  for (const char* bad : {"many", "", "4096.5", "1000", "4", "0", "-8", "2097152", "1e300"}) {
    const std::string m = entries_error(bad);
    EXPECT_NE(m.find("key 'entries'"), std::string::npos) << bad << ": " << m;
    EXPECT_NE(m.find("power of two from 8 to 1,048,576"), std::string::npos) << bad << ": " << m;
  }
  EXPECT_NE(entries_error("4096.5").find("not an integer"), std::string::npos);
  EXPECT_NE(entries_error("many").find("not a number"), std::string::npos);
  EXPECT_NE(command_error("size entries=4096").find("'entries'"), std::string::npos);
  EXPECT_NE(command_error("size --silicon entries=1000").find("'entries'"), std::string::npos);
  EXPECT_NE(command_error("size --yosys").find("--yosys needs --silicon"), std::string::npos);
  EXPECT_NE(command_error("size --silicon --vs hosts=1,2").find("--vs"), std::string::npos);
  EXPECT_NE(command_error("size --silicon entriez=4096").find("'entriez'"), std::string::npos);
  testing::internal::CaptureStdout();
  EXPECT_EQ(command_error("size --silicon entries=auto --json"), "no error");
  const nlohmann::json out = nlohmann::json::parse(testing::internal::GetCapturedStdout());
  EXPECT_EQ(out["silicon"]["rows"].size(), 6u);
}

// The binary: exit status 2 for bad input, and for --yosys without Yosys.
int run(const std::string& command, std::string& err) {
  const std::string cmd = command + " 2>&1 >/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::array<char, 512> buf{};
  err.clear();
  while (std::fgets(buf.data(), buf.size(), p)) err += buf.data();
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SizeSilicon, ExitStatus) {
  const std::string bin = NETASIC_BINARY;
  std::string err;
  EXPECT_EQ(run(bin + " size --silicon entries=1000", err), 2);
  EXPECT_NE(err.find("key 'entries'"), std::string::npos) << err;
  EXPECT_EQ(run(bin + " size --silicon entries=4096.0x", err), 2);
  EXPECT_EQ(run(bin + " size --silicon entries=4096", err), 0) << err;
  EXPECT_EQ(run("PATH=/nonexistent " + bin + " size --silicon entries=8 --yosys", err), 2);
  EXPECT_NE(err.find("yosys not found"), std::string::npos) << err;
  // A binary with no data directory next to it has no synthesis script.
  char dir[] = "/tmp/netasic-silicon-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string lone = std::string(dir) + "/netasic";
  ASSERT_EQ(std::system(("cp " + bin + " " + lone).c_str()), 0);
  EXPECT_EQ(run(lone + " size --silicon entries=8 --yosys", err), 2);
  EXPECT_NE(err.find("synth-scripts/synth.sh not found"), std::string::npos) << err;
  EXPECT_EQ(err.find("size --yosys: synth-scripts"), std::string::npos) << "nothing ran: " << err;
  std::system(("rm -rf " + std::string(dir)).c_str());
}

}  // namespace
}  // namespace netasic::sizing
