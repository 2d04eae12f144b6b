#include "tb/sizing/analytic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tlm/common/error.h"

namespace netasic::sizing {

namespace {

const std::map<std::string, std::string>& aliases() {
  static const std::map<std::string, std::string> a = {{"rtt_us", "latency_us"}, {"link_rate_gbps", "link_gbps"},
                                                       {"mtu", "mtu_bytes"}};
  return a;
}

std::string fmt_value(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:g}", v);
}

}  // namespace

const std::vector<SizeKey>& size_keys() {
  static const std::vector<SizeKey> keys = {
      {"hosts", "-", 1024, 1, 1e9, true, "N: hosts in the network"},
      {"hosts_per_switch", "-", 8, 1, 1e6, true, "hosts under one ingress (edge) switch: a k-ary fat tree has k/2"},
      {"link_gbps", "Gb/s", 200, 0.001, 1e6, false, "B: host link rate"},
      {"latency_us", "us", 5, 0.001, 1e7, false,
       "L: time a packet holds table state; for Flowcut the ingress-egress-ingress round trip (alias rtt_us)"},
      {"mtu_bytes", "bytes", 4096, 64, 1e7, true, "M: packet size (every packet MTU-sized, as in the paper)"},
      {"flows_per_host", "-", 64, 1, 1e9, true, "F: concurrent flows per host sharing its bandwidth"},
      {"key_bytes", "bytes", 13, 0, 1024, true, "flow key stored per entry (IPv4 5-tuple: 13 B); 0 to count state only"},
      {"flowsail.queues", "-", 8, 2, 32, true, "FlowSail queues per port (log2 of it is the qIdx field)"},
      {"flowsail.size_bits", "bits", 24, 4, 32, true, "FlowSail size counter width"},
      {"flowsail.pause_bits", "bits", 8, 2, 16, true, "FlowSail pauseNum width"},
      {"flowsail.load_factor", "-", 0.7, 0.01, 1, false, "cuckoo-hash load factor: entries = flows / load factor"},
      {"flowsail.flows", "-", 0, 0, 1e12, false,
       "flows one switch's FlowSail table holds; 0: every active flow (the full-switch worst case)"},
      {"reorder.connections", "-", 0, 0, 1e9, true, "connections one NIC reorders; 0: hosts - 1"},
      {"reorder.buffer_bytes", "bytes", 0, 0, 1e12, false,
       "static rearrange buffer per connection; 0: one host's bandwidth-delay product B*L"},
      {"reorder.pool_bytes", "bytes", 0, 0, 1e12, false,
       "dynamic rearrange pool per NIC; 0: one host's bandwidth-delay product B*L"},
  };
  return keys;
}

const SizeKey* find_size_key(const std::string& name) {
  auto a = aliases().find(name);
  const std::string& n = a == aliases().end() ? name : a->second;
  for (const auto& k : size_keys())
    if (k.name == n) return &k;
  return nullptr;
}

SizeInputs::SizeInputs() {
  for (const auto& k : size_keys()) values_[k.name] = k.default_value;
}

void SizeInputs::set(const std::string& key, const std::string& text) {
  const SizeKey* k = find_size_key(key);
  if (!k) {
    std::string known;
    for (const auto& d : size_keys()) known += (known.empty() ? "" : ", ") + d.name;
    throw InputError(fmt::format("size: unknown key '{}' (known keys: {})", key, known));
  }
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (text.empty() || end == begin || *end != '\0' || !std::isfinite(v))
    throw InputError(fmt::format("size: key '{}': '{}' is not a number", key, text));
  if (k->integer && v != std::floor(v))
    throw InputError(fmt::format("size: key '{}': '{}' is not an integer", key, text));
  if (v < k->min || v > k->max)
    throw InputError(fmt::format("size: key '{}': {} is outside {}..{}", key, text, fmt_value(k->min), fmt_value(k->max)));
  values_[k->name] = v;
}

void SizeInputs::set_assignment(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(fmt::format("size: '{}': expected KEY=VALUE", assignment));
  set(assignment.substr(0, eq), assignment.substr(eq + 1));
}

double SizeInputs::get(const std::string& key) const {
  const SizeKey* k = find_size_key(key);
  return values_.at(k ? k->name : key);
}

const SizeRow& SizeResult::row(const std::string& name) const {
  for (const auto& r : rows)
    if (r.name == name) return r;
  throw std::out_of_range("no size row " + name);
}

unsigned flowsail_entry_bits(unsigned queues, unsigned size_bits, unsigned pause_bits) {
  unsigned qbits = 0;
  while ((1u << qbits) < queues) ++qbits;
  return 32 + qbits + size_bits + pause_bits;
}

SizeResult compute(const SizeInputs& in) {
  SizeResult r;
  const double n = in.get("hosts"), hps = in.get("hosts_per_switch"), f = in.get("flows_per_host");
  const double bytes_per_s = in.get("link_gbps") * 1e9 / 8.0;
  const double latency_s = in.get("latency_us") * 1e-6;
  const double bdp = bytes_per_s * latency_s;  // one host's bytes in flight
  const double key = in.get("key_bytes");
  r.packets_in_flight_per_host = bdp / in.get("mtu_bytes");
  r.active_flows_per_host = std::min(f, r.packets_in_flight_per_host);
  r.active_flows = n * r.active_flows_per_host;

  auto flow_row = [&](const std::string& name, const std::string& scope, double flows, double per_entry) {
    SizeRow row{name, scope, flows, std::ceil(flows - 1e-9), per_entry, 0};
    row.bytes = row.entries * per_entry;
    r.rows.push_back(row);
  };
  flow_row("full_switch", "one switch, every active flow (worst case)", r.active_flows, kFullSwitchStateBytes + key);
  flow_row("ingress_only", "ingress switch, flows of its hosts",
           std::min(hps, n) * r.active_flows_per_host, kIngressOnlyStateBytes + key);
  flow_row("nic_only", "one NIC, its own flows", r.active_flows_per_host, kNicOnlyStateBytes + key);
  flow_row("flowlet", "one switch, every active flow", r.active_flows, kFlowletStateBytes);
  flow_row("flowcell", "one switch, every active flow", r.active_flows, kFlowcellStateBytes);

  const double fs_flows = in.get("flowsail.flows") > 0 ? in.get("flowsail.flows") : r.active_flows;
  const unsigned bits = flowsail_entry_bits(static_cast<unsigned>(in.get("flowsail.queues")),
                                            static_cast<unsigned>(in.get("flowsail.size_bits")),
                                            static_cast<unsigned>(in.get("flowsail.pause_bits")));
  SizeRow fs{"flowsail", fmt::format("one switch, flow table at load factor {}", fmt_value(in.get("flowsail.load_factor"))),
             fs_flows, std::ceil(fs_flows / in.get("flowsail.load_factor") - 1e-9), bits / 8.0, 0};
  fs.bytes = fs.entries * bits / 8.0;
  r.rows.push_back(fs);

  const double conns = in.get("reorder.connections") > 0 ? in.get("reorder.connections") : std::max(1.0, n - 1);
  const double buf = in.get("reorder.buffer_bytes") > 0 ? in.get("reorder.buffer_bytes") : std::ceil(bdp);
  const double pool = in.get("reorder.pool_bytes") > 0 ? in.get("reorder.pool_bytes") : std::ceil(bdp);
  r.rows.push_back({"reorder_static", "one NIC, a buffer per connection", conns, 0, buf, conns * buf});
  r.rows.push_back({"reorder_dynamic", "one NIC, one shared pool", conns, 0, 0, pool});
  return r;
}

std::string human_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

nlohmann::json to_json(const SizeInputs& in, const SizeResult& r) {
  nlohmann::json j;
  for (const auto& [k, v] : in.values()) j["inputs"][k] = v;
  j["packets_in_flight_per_host"] = r.packets_in_flight_per_host;
  j["active_flows_per_host"] = r.active_flows_per_host;
  j["active_flows"] = r.active_flows;
  for (const auto& row : r.rows)
    j["memory"][row.name] = {{"scope", row.scope}, {"flows", row.flows}, {"entries", row.entries},
                             {"bytes_per_entry", row.bytes_per_entry}, {"bytes", row.bytes}};
  return j;
}

std::string to_table(const SizeInputs& in, const SizeResult& r) {
  std::string s = "netasic size (Flowcut eq. 1: active flows = N * min(F, B*L/M))\n  inputs:";
  int col = 0;
  for (const auto& k : size_keys()) {
    s += fmt::format("{}{}={}", col++ % 5 == 0 ? "\n    " : "  ", k.name, fmt_value(in.get(k.name)));
  }
  s += fmt::format("\n  packets in flight per host B*L/M  {:.2f}\n", r.packets_in_flight_per_host);
  s += fmt::format("  active flows per host min(F, B*L/M) {:.2f}\n", r.active_flows_per_host);
  s += fmt::format("  active flows in the network       {:.1f}\n\n", r.active_flows);
  s += fmt::format("  {:<16} {:<44} {:>12} {:>12} {:>10} {:>14} {:>12}\n", "table", "scope", "flows", "entries",
                   "B/entry", "bytes", "memory");
  for (const auto& row : r.rows)
    s += fmt::format("  {:<16} {:<44} {:>12.1f} {:>12} {:>10} {:>14.0f} {:>12}\n", row.name, row.scope, row.flows,
                     row.entries > 0 ? fmt::format("{:.0f}", row.entries) : "-", row.bytes_per_entry > 0 ? fmt_value(row.bytes_per_entry) : "-", row.bytes,
                     human_bytes(row.bytes));
  return s;
}

Series compute_series(const SizeInputs& in, const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw InputError(fmt::format("size: --vs '{}': expected KEY=a,b,c", spec));
  Series s;
  s.key = spec.substr(0, eq);
  std::string list = spec.substr(eq + 1);
  if (list.empty()) throw InputError(fmt::format("size: --vs key '{}': no values", s.key));
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const auto comma = list.find(',', pos);
    const std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    SizeInputs point = in;
    point.set(s.key, item);  // validates: names the key
    s.values.push_back(point.get(s.key));
    s.results.push_back(compute(point));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return s;
}

nlohmann::json to_json(const SizeInputs& in, const Series& s) {
  nlohmann::json j;
  for (const auto& [k, v] : in.values()) j["inputs"][k] = v;
  j["vs"] = s.key;
  j["series"] = nlohmann::json::array();
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    SizeInputs point = in;
    point.set(s.key, fmt_value(s.values[i]));
    nlohmann::json p = to_json(point, s.results[i]);
    p.erase("inputs");
    p[s.key] = s.values[i];
    j["series"].push_back(p);
  }
  return j;
}

std::string to_table(const Series& s) {
  std::string out = fmt::format("netasic size --vs {} (memory per table)\n  {:>14} {:>12} {:>15}", s.key, s.key,
                                "active", "ingress_entries");
  if (s.results.empty()) return out + "\n";
  for (const auto& row : s.results.front().rows) out += fmt::format(" {:>15}", row.name);
  out += "\n";
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    out += fmt::format("  {:>14} {:>12.1f} {:>15.0f}", fmt_value(s.values[i]), s.results[i].active_flows,
                       s.results[i].row("ingress_only").entries);
    for (const auto& row : s.results[i].rows) out += fmt::format(" {:>15}", human_bytes(row.bytes));
    out += "\n";
  }
  return out;
}

}  // namespace netasic::sizing
