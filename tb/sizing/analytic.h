// Analytic table-sizing model (`netasic size`): the Flowcut paper's active-flow bound (eq. 1) times the
// per-flow state of each scheme (Table III), the FlowSail flow table (entry bits as tlm/blocks/flowsail
// models them, over a cuckoo-hash load factor) and the NIC reorder memory of Martinez et al. (static
// partition or dynamic pool). Plain C++: no SystemC, no simulation.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace netasic::sizing {

// One input of the model: name, unit, default and allowed range.
struct SizeKey {
  std::string name;
  std::string unit;
  double default_value;
  double min, max;
  bool integer;
  std::string description;
};
const std::vector<SizeKey>& size_keys();
const SizeKey* find_size_key(const std::string& name);  // also resolves aliases (rtt_us -> latency_us)

// Inputs, every key at its default until set. set() throws InputError naming the key on an unknown key,
// a non-numeric value or a value outside the key's range.
class SizeInputs {
 public:
  SizeInputs();
  void set(const std::string& key, const std::string& text);
  void set_assignment(const std::string& assignment);  // KEY=VALUE
  double get(const std::string& key) const;
  const std::map<std::string, double>& values() const { return values_; }

 private:
  std::map<std::string, double> values_;
};

// One line of the result: a table (or memory) and what it costs.
struct SizeRow {
  std::string name;        // full_switch, ingress_only, nic_only, flowlet, flowcell, flowsail, reorder_static, reorder_dynamic
  std::string scope;       // where the memory sits and which flows it holds
  double flows = 0;        // flows (or connections) the memory must hold
  double entries = 0;      // entries provisioned: ceil(flows), / load factor for flowsail; 0 for reorder rows
  double bytes_per_entry = 0;
  double bytes = 0;        // total memory
};

struct SizeResult {
  double packets_in_flight_per_host = 0;  // B*L/M
  double active_flows_per_host = 0;       // min(F, B*L/M)
  double active_flows = 0;                // N * min(F, B*L/M)   (eq. 1)
  std::vector<SizeRow> rows;
  const SizeRow& row(const std::string& name) const;
};

// Table III, bytes of per-flow state (key excluded).
constexpr double kFullSwitchStateBytes = 11;
constexpr double kIngressOnlyStateBytes = 10;
constexpr double kNicOnlyStateBytes = 10;
constexpr double kFlowletStateBytes = 5;
constexpr double kFlowcellStateBytes = 2;

// NFT entry bits as tlm/blocks/flowsail.cpp stores them: 32-bit FID + queue index + size + pauseNum.
unsigned flowsail_entry_bits(unsigned queues, unsigned size_bits, unsigned pause_bits);

SizeResult compute(const SizeInputs& in);

nlohmann::json to_json(const SizeInputs& in, const SizeResult& r);
std::string to_table(const SizeInputs& in, const SizeResult& r);

// `--vs KEY=a,b,c`: one result per value of KEY, the other inputs as given.
struct Series {
  std::string key;
  std::vector<double> values;
  std::vector<SizeResult> results;
};
Series compute_series(const SizeInputs& in, const std::string& spec);
nlohmann::json to_json(const SizeInputs& in, const Series& s);
std::string to_table(const Series& s);

std::string human_bytes(double bytes);  // "12.3 KiB"

}  // namespace netasic::sizing
