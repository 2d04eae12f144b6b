#include "tb/sizing/silicon.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "tb/synth_script.h"
#include "tlm/common/error.h"

namespace netasic::sizing {

namespace {

constexpr double kMaxEntries = 1 << 20;  // the hashed table's limit: no block is asked beyond it
constexpr double kMinEntries = 8;        // the hashed 4-way table: Ways <= Entries / 2

std::string grouped(double v) {
  const long long n = std::llround(v);
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (n < 0 ? "-" : "") + out;
}

std::string coefficient(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e9) return grouped(v);
  if (std::fabs(v) < 100) return fmt::format("{:.4g}", v);
  std::string s = fmt::format("{:.1f}", v);  // no exponent for the large constant terms
  return s.substr(s.size() - 2) == ".0" ? s.substr(0, s.size() - 2) : s;
}

bool power_of_two(double n) {
  return n >= 1 && n == std::floor(n) && std::fmod(n, std::exp2(std::floor(std::log2(n)))) == 0;
}

double next_power_of_two(double n) { return n <= 1 ? 1 : std::exp2(std::ceil(std::log2(n) - 1e-12)); }

// The measured points and fits. Sources, all Yosys 0.23 through synth-scripts/synth.sh (ABC flow unless a
// point says otherwise); verification/sizing/test_size_silicon.cpp reads docs/synthesis_sweep.json and
// docs/synthesis.md and checks the points and fits below against them.
//  - NAND2 equivalents, flip-flops: the size sweep, docs/synthesis_sweep.json (`/usr/bin/python3
//    synth-scripts/sweep.py --cam-abc-max 256`), and its table in docs/synthesis.md ("Size sweep").
//  - Logic depth: docs/synthesis.md, "Timing estimate" (`synth.sh BLOCK ... --timing`).
//  - FlowSail at NFT 256, 4,096 and 65,536 entries: `synth.sh flowsail NftEntries=N --timing`, recorded in
//    the same timing table; 1,024 entries is its default point.
//  - Fits "a + c log2(n)" and the CAM's depth fit: least squares over the points listed with them (the
//    test recomputes them). The CAM's gate fit is `cam_fit` of docs/synthesis_sweep.json (sweep.py, over
//    256 .. 2,048 entries). Flip-flop formulas pass exactly through every measured point.
SiliconBlock flowcut_hashed_block() {
  SiliconBlock hashed;
  hashed.name = "flowcut_hashed";
  hashed.title = "Flowcut table, hashed 4-way (RAM)";
  hashed.synth_block = "flowcut_table";
  hashed.synth_params = {"Impl=HASHED", "Ways=4"};
  hashed.entries_param = "Entries";
  hashed.min_entries = 8;
  hashed.max_entries = 1 << 20;
  hashed.rtl_rule = "rtl/flowcut_table_hashed.sv: Entries a power of two in 4 .. 1048576, Ways (4) <= Entries / 2";
  hashed.parameters = "104-bit key, 8-bit ports, 24-bit in-flight counter, full-switch entry: 194 bits; 4 ways";
  hashed.bits_per_entry = 194;
  hashed.fixed_memory_bits = 0;
  hashed.ram_in_path = true;
  hashed.yosys_max_entries = kMaxEntries;
  hashed.area_scale = Scale::log2_entries;
  hashed.points = {{256, 13784, 338, 72, "measured"},   {1024, 14292, 348, 73, "measured"},
                   {4096, 14152, 358, 72, "measured"},  {16384, 15727, 368, 73, "measured"},
                   {65536, 15506, 378, 71, "measured"}};
  hashed.gates = {11764.8, 0, 243.95, 0, 256, 65536, "least squares over the measured points; ABC's mapping "
                                                     "moves this block's gates by +-10% between sizes"};
  hashed.flops = {298, 0, 5, 0, 256, 65536, "exact at every measured size"};
  hashed.depth = {73.4, 0, -0.1, 0, 256, 65536, "least squares over the measured points"};
  return hashed;
}

SiliconBlock flowcut_cam_block() {
  SiliconBlock cam;
  cam.name = "flowcut_cam";
  cam.title = "Flowcut table, CAM (fully associative, flip-flops)";
  cam.synth_block = "flowcut_table";
  cam.synth_params = {"Impl=CAM"};
  cam.entries_param = "Entries";
  cam.min_entries = 4;
  cam.max_entries = 65536;
  cam.rtl_rule = "rtl/flowcut_table_cam.sv: Entries in 4 .. 65536";
  cam.parameters = "104-bit key, 8-bit ports, 24-bit in-flight counter, full-switch entry: 194 bits";
  cam.bits_per_entry = 0;  // the 194 bits of an entry are flip-flops
  cam.fixed_memory_bits = 0;
  cam.ram_in_path = false;
  // ABC's run time grows 3-6 times per doubling: 156 s of CPU at 128 entries, 884 s at 256.
  cam.yosys_max_entries = 128;
  cam.yosys_refusal = "not run above 128 entries: Yosys' ABC flow takes about 3 minutes of CPU at 128 entries, 15 "
                      "at 256 and 3-6 times more per doubling; the figures above are the sweep's measurements and fit "
                      "(docs/synthesis.md, Size sweep)";
  cam.area_scale = Scale::entries;
  cam.points = {{8, 20952, 1857, 76, "measured"},
                {16, 39192, 3411, 85, "measured"},
                {32, 75480, 6517, 91, "measured"},
                {64, 147944, 12727, 95, "measured"},
                {128, 292556, 25145, 105, "measured"},
                {256, 582511.0, 49979, 0, "measured"},
                {512, 1160916.3361486997, 99645, 0, "measured (techmap flow, calibrated)"},
                {1024, 2320213.40630408, 198975, 0, "measured (techmap flow, calibrated)"},
                {2048, 4643809.703454887, 397633, 0, "measured (techmap flow, calibrated)"}};
  cam.gates = {6606.7422713203, 2210.6202323698244, 0, 4.8762627973378585, 256, 2048,
               "cam_fit of docs/synthesis_sweep.json, least squares over 256 .. 2,048 entries"};
  cam.flops = {299, 194, 2, 0, 8, 2048, "exact at every measured size"};
  // The depth grows by about 7 levels per doubling (the priority encoders are a lowest-bit isolate and OR
  // trees, the read mux a tree): a + c log2(n), as for the RAM tables.
  cam.depth = {56.4, 0, 6.8, 0, 8, 128, "least squares over the measured points"};
  cam.note = "its logic depth grows by about 7 levels per doubling; the estimate leaves out wires and the "
             "fanout of the key and select nets to every entry, which dominate a CAM of thousands of entries";
  return cam;
}

SiliconBlock flowlet_block() {
  SiliconBlock flowlet;
  flowlet.name = "flowlet";
  flowlet.title = "flowlet table (LetFlow, RAM)";
  flowlet.synth_block = "flowlet_table";
  flowlet.entries_param = "Entries";
  flowlet.min_entries = 4;
  flowlet.max_entries = 1 << 24;
  flowlet.rtl_rule = "rtl/flowlet_table.sv: Entries a power of two in 4 .. 16777216";
  flowlet.parameters = "104-bit key, 8-bit port, valid and age bits: 10 bits per entry";
  flowlet.bits_per_entry = 10;
  flowlet.fixed_memory_bits = 0;
  flowlet.ram_in_path = false;  // its longest path is the random draw, not the RAM
  flowlet.yosys_max_entries = kMaxEntries;
  flowlet.area_scale = Scale::log2_entries;
  flowlet.points = {{256, 12560, 294, 268, "measured"},   {1024, 12684, 298, 268, "measured"},
                    {4096, 12768, 302, 268, "measured"},  {16384, 12828, 306, 268, "measured"},
                    {65536, 12966, 310, 261, "measured"}};
  flowlet.gates = {12187.6, 0, 47.8, 0, 256, 65536, "least squares over the measured points"};
  flowlet.flops = {278, 0, 2, 0, 256, 65536, "exact at every measured size"};
  flowlet.depth = {275, 0, -0.7, 0, 256, 65536, "least squares over the measured points"};
  return flowlet;
}

SiliconBlock flowsail_block() {
  SiliconBlock flowsail;
  flowsail.name = "flowsail";
  flowsail.title = "FlowSail (NFT at these entries, CFT 256)";
  flowsail.synth_block = "flowsail";
  flowsail.entries_param = "NftEntries";
  flowsail.min_entries = 2;
  flowsail.max_entries = 1 << 20;
  flowsail.rtl_rule = "rtl/flowsail.sv: NftEntries a power of two in 2 .. 1048576";
  flowsail.parameters = "8 queues, 24-bit size, 8-bit pauseNum: NFT 67 bits per entry, CFT 256 x 70 bits";
  flowsail.bits_per_entry = 67;
  flowsail.fixed_memory_bits = 256 * 70;
  flowsail.ram_in_path = false;  // its longest path is the random queue choice
  flowsail.yosys_max_entries = kMaxEntries;
  flowsail.area_scale = Scale::log2_entries;
  flowsail.points = {{256, 15137, 773, 330, "measured"},
                     {1024, 14831, 775, 329, "measured"},
                     {4096, 15256, 777, 330, "measured"},
                     {65536, 15344, 781, 331, "measured"}};
  flowsail.gates = {14665.57142857143, 0, 41.42857142857143, 0, 256, 65536, "least squares over the measured points"};
  flowsail.flops = {765, 0, 1, 0, 256, 65536, "exact at every measured size"};
  flowsail.depth = {328.0285714285714, 0, 0.17142857142857143, 0, 256, 65536,
                    "least squares over the measured points"};
  return flowsail;
}

double scaled(Scale s, double n) { return s == Scale::entries ? n : std::log2(n); }

// One figure at n: the measured point, an interpolation between the two measured points around n, or the
// fit beyond them. value(p) is the figure of point p, 0 where it was not measured.
template <typename Value>
Figure figure(const SiliconBlock& b, double n, Scale scale, const Fit& fit, Value value) {
  std::vector<const SynthPoint*> pts;
  for (const auto& p : b.points)
    if (value(p) > 0) pts.push_back(&p);
  for (const SynthPoint* p : pts)
    if (p->entries == n) return {value(*p), p->how};
  if (!pts.empty() && n > pts.front()->entries && n < pts.back()->entries) {
    const SynthPoint* hi = *std::find_if(pts.begin(), pts.end(), [&](const SynthPoint* p) { return p->entries > n; });
    const SynthPoint* lo = *(std::find(pts.begin(), pts.end(), hi) - 1);
    const double x0 = scaled(scale, lo->entries), x1 = scaled(scale, hi->entries);
    const double t = (scaled(scale, n) - x0) / (x1 - x0);
    return {value(*lo) + t * (value(*hi) - value(*lo)),
            fmt::format("interpolated between {} and {} entries{}", grouped(lo->entries), grouped(hi->entries),
                        scale == Scale::entries ? "" : " (in log2 entries)")};
  }
  return {fit(n), fmt::format("extrapolated beyond the measured {} .. {} entries with the fit {} ({})",
                              grouped(pts.empty() ? fit.lo : pts.front()->entries),
                              grouped(pts.empty() ? fit.hi : pts.back()->entries), fit.formula(), fit.source)};
}

}  // namespace

double Fit::operator()(double n) const {
  const double l = std::log2(n);
  return a + b * n + c * l + d * n * l;
}

std::string Fit::formula() const {
  std::string s = coefficient(a);
  auto term = [&](double k, const char* what) {
    if (k == 0) return;
    s += fmt::format(" {} {}{}", k < 0 ? "-" : "+", k == 1 || k == -1 ? "" : coefficient(std::fabs(k)) + " ", what);
  };
  term(b, "n");
  term(c, "log2(n)");
  term(d, "n log2(n)");
  return s;
}

const std::vector<SiliconBlock>& silicon_blocks() {
  static const std::vector<SiliconBlock> blocks = {flowcut_hashed_block(), flowcut_cam_block(), flowlet_block(),
                                                    flowsail_block()};
  return blocks;
}

const SiliconBlock& silicon_block(const std::string& name) {
  for (const auto& b : silicon_blocks())
    if (b.name == name) return b;
  throw std::out_of_range("no silicon block " + name);
}

double parse_silicon_entries(const std::string& text) {
  const std::string rule = fmt::format(
      "entries must be a power of two from {} to {} (the hashed 4-way Flowcut table's elaboration check, "
      "rtl/flowcut_table_hashed.sv: Entries a power of two up to 1048576 and at least twice its 4 ways)",
      grouped(kMinEntries), grouped(kMaxEntries));
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0' || !std::isfinite(v))
    throw InputError(fmt::format("size: key 'entries': '{}' is not a number; {}", text, rule));
  if (v != std::floor(v)) throw InputError(fmt::format("size: key 'entries': '{}' is not an integer; {}", text, rule));
  if (v < kMinEntries || v > kMaxEntries || !power_of_two(v))
    throw InputError(fmt::format("size: key 'entries': {} is not allowed; {}", text, rule));
  return v;
}

SiliconRow estimate(const SiliconBlock& b, double n) {
  SiliconRow r;
  r.block = b.name;
  r.entries = n;
  if (n < b.min_entries || n > b.max_entries || !power_of_two(n)) {
    r.refused = fmt::format("outside the RTL's range ({})", b.rtl_rule);
    return r;
  }
  const double bits = n * b.bits_per_entry + b.fixed_memory_bits;
  r.memory_bits = {bits, b.bits_per_entry == 0
                             ? "none: the entries are flip-flops (194 bits each)"
                             : b.fixed_memory_bits == 0
                                   ? fmt::format("exact: {} x {} bits", grouped(n), b.bits_per_entry)
                                   : fmt::format("exact: {} x {} + {} bits", grouped(n), b.bits_per_entry,
                                                 grouped(b.fixed_memory_bits))};
  r.nand2 = figure(b, n, b.area_scale, b.gates, [](const SynthPoint& p) { return p.nand2; });
  // Flip-flops: the formulas pass through every measured point, so between points they are exact too.
  r.flip_flops = figure(b, n, b.area_scale, b.flops, [](const SynthPoint& p) { return p.flip_flops; });
  // The techmap flow's flip-flops are counted, not calibrated: only its gates go through the ABC factor.
  const auto calibrated = r.flip_flops.how.find(", calibrated");
  if (calibrated != std::string::npos) r.flip_flops.how.erase(calibrated, 12);
  if (r.flip_flops.how.rfind("interpolated", 0) == 0) {
    r.flip_flops.value = b.flops(n);
    r.flip_flops.how = fmt::format("formula {} ({})", b.flops.formula(), b.flops.source);
  }
  r.depth = figure(b, n, b.area_scale, b.depth, [](const SynthPoint& p) { return p.depth; });
  r.depth.value = std::round(r.depth.value);
  r.clock_ps = r.depth.value * kGateDelayPs + kFlopOverheadPs;
  r.fmax_mhz = 1e6 / r.clock_ps;
  return r;
}

std::vector<SiliconRow> silicon_rows(const SizeResult& result, std::optional<double> entries) {
  std::vector<SiliconRow> rows;
  auto add = [&](const std::string& block, const std::string& from, double wanted) {
    const double n = entries ? *entries : std::max(kMinEntries, next_power_of_two(wanted));
    SiliconRow r = estimate(silicon_block(block), n);
    r.sized_from = from;
    r.wanted = wanted;
    rows.push_back(r);
  };
  if (entries) {
    for (const auto& b : silicon_blocks()) add(b.name, "given", 0);
    return rows;
  }
  for (const char* from : {"ingress_only", "full_switch"}) {
    add("flowcut_hashed", from, result.row(from).entries);
    add("flowcut_cam", from, result.row(from).entries);
  }
  add("flowlet", "flowlet", result.row("flowlet").entries);
  add("flowsail", "flowsail", result.row("flowsail").entries);
  return rows;
}

void run_yosys(std::vector<SiliconRow>& rows) {
  namespace fs = std::filesystem;
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = (fs::path(tmp && *tmp ? tmp : "/tmp") / "netasic-size-XXXXXX").string();
  std::string dir_created;
  // Before any progress line: without the script or Yosys nothing runs.
  synth_script_path();
  if (find_on_path("yosys").empty())
    throw InputError("size --yosys: yosys not found on PATH (scripts/install-deps.sh installs it; docs/synthesis.md)");
  for (auto& r : rows) {
    if (!r.refused.empty()) continue;
    const SiliconBlock& b = silicon_block(r.block);
    if (r.entries > b.yosys_max_entries) {
      r.yosys.refused = b.yosys_refusal;
      continue;
    }
    if (dir_created.empty()) {
      if (!mkdtemp(dir.data())) throw std::runtime_error("size --yosys: cannot create a directory under " + dir);
      dir_created = dir;
    }
    SynthRequest req;
    req.block = b.synth_block;
    req.params = b.synth_params;
    req.params.push_back(fmt::format("{}={:.0f}", b.entries_param, r.entries));
    req.options = {"--timing"};
    req.out = (fs::path(dir_created) / fmt::format("{}_{:.0f}", b.name, r.entries)).string();
    req.summary_to_stderr = true;
    req.require_yosys = true;
    std::string command = "synth-scripts/synth.sh " + req.block;
    for (const auto& p : req.params) command += " " + p;
    std::cerr << "size --yosys: " << command << " --timing\n";
    const int status = run_synth_script(req);
    const fs::path result = fs::path(req.out) / "result.json";
    std::ifstream f(result);
    if (status != 0 || !f)
      throw std::runtime_error(fmt::format("size --yosys: {} failed (exit status {}); see {}", command, status,
                                           (fs::path(req.out) / "yosys.log").string()));
    const nlohmann::json j = nlohmann::json::parse(f);
    r.yosys.ran = true;
    r.yosys.nand2 = j.at("nand2_equivalent").get<double>();
    r.yosys.flip_flops = j.at("flip_flops").get<double>();
    r.yosys.memory_bits = j.at("memory_bits").get<double>();
    r.yosys.depth = j.at("logic_depth").get<double>();
    r.yosys.seconds = j.at("yosys_seconds").get<double>();
    r.yosys.out_dir = req.out;
  }
}

nlohmann::json silicon_json(const std::vector<SiliconRow>& rows) {
  nlohmann::json j;
  j["estimate"] = "pre-layout, Yosys 0.23 generic gates (docs/synthesis.md); memories in bits, not gates";
  j["timing_model"] = {{"gate_delay_ps", kGateDelayPs},
                       {"flop_overhead_ps", kFlopOverheadPs},
                       {"est_clock_ps", "logic_depth x gate_delay_ps + flop_overhead_ps"}};
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows) {
    const SiliconBlock& b = silicon_block(r.block);
    nlohmann::json o = {{"block", r.block}, {"title", b.title}, {"parameters", b.parameters},
                        {"sized_from", r.sized_from}, {"entries", r.entries}};
    if (r.sized_from != "given") o["wanted_entries"] = r.wanted;
    if (!r.refused.empty()) {
      o["refused"] = r.refused;
      j["rows"].push_back(o);
      continue;
    }
    auto fig = [](const Figure& f) { return nlohmann::json{{"value", f.value}, {"how", f.how}}; };
    o["memory_bits"] = fig(r.memory_bits);
    o["nand2_equivalent"] = fig(r.nand2);
    o["flip_flops"] = fig(r.flip_flops);
    o["logic_depth"] = fig(r.depth);
    o["est_clock_ps"] = r.clock_ps;
    o["est_fmax_mhz"] = std::round(r.fmax_mhz * 10) / 10;
    o["clock_excludes_ram_access"] = b.ram_in_path;
    if (!b.note.empty()) o["note"] = b.note;
    if (r.yosys.ran) {
      o["yosys"] = {{"nand2_equivalent", r.yosys.nand2}, {"flip_flops", r.yosys.flip_flops},
                    {"memory_bits", r.yosys.memory_bits}, {"logic_depth", r.yosys.depth},
                    {"est_clock_ps", r.yosys.depth * kGateDelayPs + kFlopOverheadPs},
                    {"yosys_seconds", r.yosys.seconds}, {"reports", r.yosys.out_dir}};
    } else if (!r.yosys.refused.empty()) {
      o["yosys"] = {{"refused", r.yosys.refused}};
    }
    j["rows"].push_back(o);
  }
  return j;
}

std::string silicon_table(const std::vector<SiliconRow>& rows, const SizeInputs& in) {
  std::string s =
      "\nnetasic size --silicon: the RTL blocks at these entries (pre-layout Yosys 0.23 estimates, docs/synthesis.md)\n"
      "  clock = logic depth x 14 ps + 42 ps flip-flop (28 nm FO4 rule of thumb; no wires: optimistic)\n"
      "  synthesized parameters, whatever key_bytes and flowsail.* say:\n";
  for (const auto& b : silicon_blocks()) s += fmt::format("    {:<15} {}\n", b.name, b.parameters);
  // The size keys describe the analytic rows; the RTL was synthesized at one parameter set.
  if (in.get("key_bytes") != 13)
    s += fmt::format("  note: key_bytes={} sizes the analytic rows only; the RTL figures are at 104-bit keys\n",
                     in.get("key_bytes"));
  if (in.get("flowsail.queues") != 8 || in.get("flowsail.size_bits") != 24 || in.get("flowsail.pause_bits") != 8)
    s += "  note: flowsail.queues, .size_bits and .pause_bits size the analytic row only; the RTL figures are at "
         "8 queues, 24 and 8 bits\n";
  s += fmt::format("\n  {:<15} {:<13} {:>9} {:>12} {:>13} {:>11} {:>6} {:>9} {:>9}\n", "block", "sized from", "entries",
                   "memory bits", "NAND2-eq", "flip-flops", "depth", "clock ps", "fmax MHz");
  bool ram_note = false;
  for (const auto& r : rows) {
    const SiliconBlock& b = silicon_block(r.block);
    if (!r.refused.empty()) {
      s += fmt::format("  {:<15} {:<13} {:>9}  not buildable: {}\n", r.block, r.sized_from, grouped(r.entries),
                       r.refused);
      continue;
    }
    ram_note = ram_note || b.ram_in_path;
    const std::string star = b.ram_in_path ? "*" : "";
    s += fmt::format("  {:<15} {:<13} {:>9} {:>12} {:>13} {:>11} {:>6} {:>9} {:>9}\n", r.block, r.sized_from,
                     grouped(r.entries), grouped(r.memory_bits.value), grouped(r.nand2.value),
                     grouped(r.flip_flops.value), grouped(r.depth.value),
                     grouped(r.clock_ps) + star, fmt::format("{:.0f}", r.fmax_mhz) + star);
    if (r.sized_from != "given")
      s += fmt::format("      sized from: the {} row's {} entries, rounded up to a power of two\n", r.sized_from,
                       grouped(r.wanted));
    s += fmt::format("      memory: {}\n      gates: {}\n      flip-flops: {}\n      depth: {}\n", r.memory_bits.how,
                     r.nand2.how, r.flip_flops.how, r.depth.how);
    if (!b.note.empty()) s += fmt::format("      note: {}\n", b.note);
    if (r.yosys.ran) {
      const double clock = r.yosys.depth * kGateDelayPs + kFlopOverheadPs;
      s += fmt::format("      yosys now: {} memory bits, {} NAND2-eq ({:+.1f}%), {} flip-flops, depth {} ({} ps, "
                       "{:.0f} MHz), {:.1f} s; reports in {}\n",
                       grouped(r.yosys.memory_bits), grouped(r.yosys.nand2), 100 * (r.yosys.nand2 / r.nand2.value - 1),
                       grouped(r.yosys.flip_flops), grouped(r.yosys.depth), grouped(clock), 1e6 / clock,
                       r.yosys.seconds, r.yosys.out_dir);
    } else if (!r.yosys.refused.empty()) {
      s += fmt::format("      yosys: {}\n", r.yosys.refused);
    }
  }
  if (ram_note) s += "  * plus the RAM's access time: the path starts at the RAM's read data (not in the estimate)\n";
  return s;
}

}  // namespace netasic::sizing
