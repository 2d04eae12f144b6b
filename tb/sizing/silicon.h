// `netasic size --silicon`: what the RTL blocks cost in silicon at a chosen table size. The figures are the
// project's own Yosys measurements (docs/synthesis.md, docs/synthesis_sweep.json), embedded as constants
// in silicon.cpp: the binary reads nothing from docs/ at run time. Between measured sizes they are
// interpolated, beyond them extrapolated with a fit; every figure says which. Pre-layout estimates.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "tb/sizing/analytic.h"

namespace netasic::sizing {

// One synthesized point (synth-scripts/synth.sh, Yosys 0.23, ABC flow unless the block's note says).
struct SynthPoint {
  double entries;
  double nand2;       // NAND2-equivalent gates, flip-flops included
  double flip_flops;
  double depth;       // logic levels (Yosys ltp -noff); 0: not measured at this size
  std::string how;    // "measured", or how the sweep obtained it
};

// y = a + b n + c log2(n) + d n log2(n): every fit below is a special case of this form.
struct Fit {
  double a = 0, b = 0, c = 0, d = 0;
  double lo = 0, hi = 0;  // entries of the points it was fitted over
  std::string source;     // where the coefficients come from
  double operator()(double n) const;
  std::string formula() const;  // "13,207 + 96.5 log2(n)"
};

// Figures that grow by entry (the CAM: a register slice and a link of its encoder chains per entry) are
// interpolated linearly in entries, the others (RAM tables: only index widths grow) in log2(entries).
enum class Scale { entries, log2_entries };

struct SiliconBlock {
  std::string name;        // flowcut_hashed, flowcut_cam, flowlet, flowsail
  std::string title;       // "Flowcut table, hashed 4-way"
  std::string synth_block; // synth.sh block
  std::vector<std::string> synth_params;  // fixed parameters (the entry count is added)
  std::string entries_param;              // Entries, NftEntries
  double min_entries, max_entries;        // the RTL's elaboration check (power of two in both cases)
  std::string rtl_rule;                   // the check, as text
  std::string parameters;                 // what was synthesized, as text
  unsigned bits_per_entry;                // RAM bits per entry (0: no RAM)
  double fixed_memory_bits;               // RAM bits that do not scale (FlowSail's CFT)
  bool ram_in_path;                       // the clock also holds a RAM access
  double yosys_max_entries;               // --yosys runs up to this size (run time)
  std::string yosys_refusal;              // why not above it
  std::string note;                       // what an architect should know about a figure
  Scale area_scale;
  std::vector<SynthPoint> points;         // ascending entries
  Fit gates, flops, depth;                // for sizes beyond the points
};

const std::vector<SiliconBlock>& silicon_blocks();
const SiliconBlock& silicon_block(const std::string& name);

// How one figure was obtained.
struct Figure {
  double value = 0;
  std::string how;  // measured, interpolated (A..B), extrapolated (fit ...), exact (RTL parameters)
};

// What Yosys measured when --yosys ran the block at this size.
struct YosysRun {
  bool ran = false;
  std::string refused;  // why it was not run
  double nand2 = 0, flip_flops = 0, memory_bits = 0, depth = 0, seconds = 0;
  std::string out_dir;
};

struct SiliconRow {
  std::string block;       // SiliconBlock::name
  std::string sized_from;  // "given", or the analytic row (ingress_only, full_switch, flowlet, flowsail)
  double wanted = 0;       // entries the analytic row needs (0 when given)
  double entries = 0;      // power of two the RTL is built with
  std::string refused;     // non-empty: the RTL cannot be built at this size (why)
  Figure memory_bits, nand2, flip_flops, depth;
  double clock_ps = 0, fmax_mhz = 0;
  YosysRun yosys;
};

// Timing model of synth-scripts/synth.py (GATE_DELAY_PS, FLOP_OVERHEAD_PS).
constexpr double kGateDelayPs = 14.0;
constexpr double kFlopOverheadPs = 42.0;

// `entries=N`: a power of two, 8 .. 1,048,576 (the hashed 4-way table's elaboration check). Throws
// InputError naming the key and the rule.
double parse_silicon_entries(const std::string& text);

// One block at a power-of-two size within its RTL range.
SiliconRow estimate(const SiliconBlock& block, double entries);

// Rows for the given entries (every block at that size), or, when not given, each table at its
// analytic entries rounded up to a power of two (Flowcut at ingress_only and full_switch).
std::vector<SiliconRow> silicon_rows(const SizeResult& r, std::optional<double> entries);

// --yosys: runs synth.sh --timing for every row whose block allows it; the script's summary goes to stderr.
void run_yosys(std::vector<SiliconRow>& rows);

nlohmann::json silicon_json(const std::vector<SiliconRow>& rows);
std::string silicon_table(const std::vector<SiliconRow>& rows, const SizeInputs& in);

}  // namespace netasic::sizing
