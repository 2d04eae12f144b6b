// Statistics are reported by the part that owns them: summary.json and tables.json are written by the
// mechanisms themselves, through one interface.
//
// How a mechanism reports (a transport, a congestion control, a routing policy, the Flowcut engine, egress
// flow control, the switch's ECN marking):
//   - it implements Reporting::report(Report&) const; its owner (Switch, Nic) calls it from its own
//     report(), and the testbench walks every component in a fixed order (switches by id, then NICs by
//     host), after its own sections;
//   - a mechanism present in many components writes the same section from each: `sum` adds counts up,
//     `max` keeps a high-water mark (`min` a low-water one), `set` writes a value every component agrees on (its configuration),
//     `sum` of a vector adds a histogram bucket by bucket;
//   - the section appears in summary.json only when some component `open`s it: a mechanism not in use
//     never opens it, so nothing decides from outside whether a section exists. Another component may add
//     its own share to a section it does not own (the NIC's received PAUSE frames to flow_control); that
//     share is written only when the owner has opened the section;
//   - values derived from the totals (a fraction, an average) come from a finish step the section runs once
//     every component has reported (`finish_with`; every component of a mechanism passes the same one);
//   - floating-point sums keep a fixed order: per-flow values go in with `flow_value` and add up in
//     flow-id order whatever the component order; run-wide statistics of the flow table (Report::flows())
//     are taken by the first component only (`once`);
//   - table entries (tables.json) are appended with Report::table(kind), in component order.
// Nested keys are written as a path, "fgfc_frames/xoff". Reporting runs once, after the run: nothing here
// is on the packet path.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tlm/common/log_histogram.h"
#include "tlm/model/flow.h"

namespace netasic {

class ReportSection {
 public:
  using Finish = std::function<void(ReportSection&)>;

  // The same value from every component (configuration): the last write stands.
  template <class T>
  void set(const std::string& key, const T& value) {
    at(key) = value;
  }
  void sum(const std::string& key, std::uint64_t value);
  void sum(const std::string& key, const std::vector<std::uint64_t>& buckets);  // bucket by bucket
  void max(const std::string& key, std::uint64_t value);
  void max(const std::string& key, double value);
  void min(const std::string& key, std::uint64_t value);

  // Totals behind derived values, not written themselves: counts, and per-flow values (each flow's at most
  // once) whose sum runs in flow-id order.
  void tally(const std::string& name, std::uint64_t value) { tallies_[name] += value; }
  std::uint64_t tally(const std::string& name) const;
  void flow_value(const std::string& name, std::uint32_t flow, double value) { flow_values_[name].emplace_back(flow, value); }
  double flow_sum(const std::string& name) const;
  std::size_t flow_count(const std::string& name) const;

  // The derived values, computed once every component has reported (the first step passed is kept).
  void finish_with(Finish f) {
    if (!finish_) finish_ = std::move(f);
  }
  void open() { open_ = true; }
  bool is_open() const { return open_; }

  // Runs the finish step; the section's JSON.
  nlohmann::json finish();

 private:
  nlohmann::json& at(const std::string& key) { return values_[nlohmann::json::json_pointer("/" + key)]; }

  nlohmann::json values_ = nlohmann::json::object();
  std::map<std::string, std::uint64_t> tallies_;
  std::map<std::string, std::vector<std::pair<std::uint32_t, double>>> flow_values_;
  Finish finish_;
  bool open_ = false;
};

class Report {
 public:
  // `end_ps`: when the run stopped (what time-weighted statistics hold their last value until).
  explicit Report(const FlowTable& flows, std::uint64_t end_ps = 0) : flows_(flows), end_ps_(end_ps) {}

  const FlowTable& flows() const { return flows_; }
  std::uint64_t end_ps() const { return end_ps_; }
  // The component reporting now (its name: a table entry's owner), set by the walk.
  void enter(std::string component) { component_ = std::move(component); }
  const std::string& component() const { return component_; }
  // A summary.json section to add to (created empty); open(): the owner says it is in use.
  ReportSection& section(const std::string& name) { return sections_[name]; }
  ReportSection& open(const std::string& name) {
    ReportSection& s = sections_[name];
    s.open();
    return s;
  }
  // True the first time `what` is asked: run-wide statistics taken by one component of many.
  bool once(const std::string& what) { return done_.insert(what).second; }
  // The entries of one kind of table in tables.json (an array, in component order).
  nlohmann::json& table(const std::string& kind);

  // Every open section, finished, into `summary`; the tables.
  void write_sections(nlohmann::json& summary);
  const nlohmann::json& tables() const { return tables_; }

 private:
  const FlowTable& flows_;
  std::uint64_t end_ps_ = 0;
  std::string component_;
  std::map<std::string, ReportSection> sections_;
  std::set<std::string> done_;
  nlohmann::json tables_ = nlohmann::json::object();
};

// A time-weighted occupancy (tlm/common/log_histogram.h) as tables.json gives it: the mean, p50 .. p99.99,
// and `levels`: [level, weight] for every bucket held (level: the bucket's upper bound, exact below 64;
// weight in ps), from which any other percentile or the whole distribution can be drawn.
nlohmann::json occupancy_json(const LogHistogram& h);
// The quantiles occupancy_json reports, by name.
inline constexpr std::pair<const char*, double> kOccupancyQuantiles[] = {
    {"p50", 0.5}, {"p99", 0.99}, {"p999", 0.999}, {"p9999", 0.9999}};

// What a mechanism implements to report its statistics (see above).
class Reporting {
 public:
  virtual ~Reporting() = default;
  virtual void report(Report& r) const = 0;
};

}  // namespace netasic
