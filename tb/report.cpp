// The testbench's sections of summary.json, one function per section (tb/report.h).
#include "tb/report.h"

#include <algorithm>
#include <cmath>


namespace netasic {

namespace {

struct Stats {
  double avg = 0, p50 = 0, p99 = 0, p999 = 0, max = 0;
  std::size_t count = 0;
};

// Nearest-rank percentiles over a copy of the values.
Stats stats_of(std::vector<double> v) {
  Stats s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.avg = sum / static_cast<double>(v.size());
  auto rank = [&](double q) {
    const auto idx = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, idx == 0 ? 0 : idx - 1)];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.p999 = rank(0.999);
  s.max = v.back();
  return s;
}

nlohmann::json to_json(const Stats& s, bool with_tail = true) {
  nlohmann::json j = {{"avg", s.avg}, {"p50", s.p50}, {"p99", s.p99}, {"max", s.max}};
  if (with_tail) j["p999"] = s.p999;
  return j;
}

struct SizeBucket {
  const char* name;
  std::uint64_t lo, hi;
};
constexpr SizeBucket kBuckets[] = {{"<10KB", 0, 10000},
                                   {"10KB-100KB", 10000, 100000},
                                   {"100KB-1MB", 100000, 1000000},
                                   {"1MB-10MB", 1000000, 10000000},
                                   {">=10MB", 10000000, ~std::uint64_t{0}}};

}  // namespace

nlohmann::json report_flows(const FlowTable& flows, const IdealFct& ideal_fct) {
  using nlohmann::json;
  std::vector<double> fct, slowdown;
  std::vector<std::vector<double>> bucket_fct(std::size(kBuckets)), bucket_sd(std::size(kBuckets));
  std::uint64_t path_changes = 0;
  for (const Flow& f : flows.flows()) {
    path_changes += f.path_changes;
    if (!f.done()) continue;
    const double fct_ns = ps_to_ns(f.finish - f.start);
    const double sd = fct_ns / ps_to_ns(ideal_fct(f));
    fct.push_back(fct_ns);
    slowdown.push_back(sd);
    for (std::size_t b = 0; b < std::size(kBuckets); ++b)
      if (f.size_bytes >= kBuckets[b].lo && f.size_bytes < kBuckets[b].hi) {
        bucket_fct[b].push_back(fct_ns);
        bucket_sd[b].push_back(sd);
      }
  }
  json j;
  j["count"] = flows.size();
  j["completed"] = flows.completed();
  j["fct_ns"] = to_json(stats_of(fct));
  j["slowdown"] = to_json(stats_of(slowdown));
  j["path_changes"] = path_changes;
  json buckets = json::array();
  for (std::size_t b = 0; b < std::size(kBuckets); ++b) {
    if (bucket_fct[b].empty()) continue;
    buckets.push_back({{"bucket", kBuckets[b].name},
                       {"flows", bucket_fct[b].size()},
                       {"fct_ns", to_json(stats_of(bucket_fct[b]))},
                       {"slowdown", to_json(stats_of(bucket_sd[b]))}});
  }
  j["by_size"] = buckets;
  return j;
}

NicCounters sum_nic_counters(const Nics& nics) {
  NicCounters n{};
  for (const auto& nic : nics) {
    const NicCounters& c = nic->counters();
    n.data_packets_sent += c.data_packets_sent;
    n.data_payload_sent += c.data_payload_sent;
    n.control_packets_sent += c.control_packets_sent;
    n.data_packets_received += c.data_packets_received;
    n.payload_delivered += c.payload_delivered;
    n.ooo_packets += c.ooo_packets;
    n.late_packets += c.late_packets;
    n.duplicates += c.duplicates;
    n.control_dropped += c.control_dropped;
    n.max_ooo_degree = std::max(n.max_ooo_degree, c.max_ooo_degree);
    n.app_out_of_order += c.app_out_of_order;
    n.nacks_sent += c.nacks_sent;
    n.receiver_drops += c.receiver_drops;
    n.waste_bytes += c.waste_bytes;
    n.received_bytes += c.received_bytes;
    n.resent_bytes += c.resent_bytes;
    n.spurious_resends += c.spurious_resends;
    n.fast_retransmits += c.fast_retransmits;
    n.timeout_retransmits += c.timeout_retransmits;
    n.sacks_sent += c.sacks_sent;
    n.sack_blocks_sent += c.sack_blocks_sent;
    n.ece_acks += c.ece_acks;
  }
  return n;
}

nlohmann::json report_packets(const NicCounters& n, const FlowTable& flows, const Switches& switches,
                              const Links& links) {
  std::uint64_t retransmits = 0, timeouts = 0;
  for (const Flow& f : flows.flows()) {
    retransmits += f.retransmits;
    timeouts += f.timeouts;
  }
  std::uint64_t switch_drops = 0, corrupted = 0;
  for (const auto& sw : switches) switch_drops += sw->counters().packets_dropped;
  for (const auto& l : links) corrupted += l->corrupted();
  nlohmann::json j = {{"injected", n.data_packets_sent},
                      {"retransmitted", retransmits},
                      {"delivered", n.data_packets_received},
                      {"duplicates", n.duplicates},
                      {"dropped", switch_drops + corrupted},
                      {"dropped_by_switches", switch_drops},
                      {"corrupted_on_links", corrupted},
                      {"control_sent", n.control_packets_sent},
                      {"control_queue_overflows", n.control_dropped},
                      {"out_of_order", n.ooo_packets},
                      {"ooo_fraction", n.data_packets_received ? static_cast<double>(n.ooo_packets) /
                                                                     static_cast<double>(n.data_packets_received)
                                                               : 0.0},
                      {"max_ooo_degree", n.max_ooo_degree},
                      {"late", n.late_packets}};
  j["timeouts"] = timeouts;
  j["app_out_of_order"] = n.app_out_of_order;
  j["spurious_retransmissions"] = n.spurious_resends;
  return j;
}

nlohmann::json report_bytes(const NicCounters& n) {
  return {{"injected", n.data_payload_sent}, {"delivered", n.payload_delivered}, {"retransmitted", n.resent_bytes}};
}

// Link utilization over the run, switch-to-switch and host links apart.
nlohmann::json report_links(const Links& links, const Topology& topology, Ps end_time) {
  std::vector<Ps> busy;
  for (const auto& l : links) busy.push_back(l->busy_time());
  return report_links(busy, topology, end_time);
}

nlohmann::json report_links(const std::vector<Ps>& busy, const Topology& topology, Ps end_time) {
  std::vector<double> fabric_util, host_util;
  for (std::size_t i = 0; i < busy.size(); ++i) {
    const TopoLink& l = topology.links[i / 2];
    const double u = end_time ? static_cast<double>(busy[i]) / static_cast<double>(end_time) : 0.0;
    (topology.is_switch(l.a) && topology.is_switch(l.b) ? fabric_util : host_util).push_back(u);
  }
  const Stats fu = stats_of(fabric_util), hu = stats_of(host_util);
  return {{"switch_links", {{"count", fu.count}, {"utilization_avg", fu.avg}, {"utilization_max", fu.max}}},
          {"host_links", {{"count", hu.count}, {"utilization_avg", hu.avg}, {"utilization_max", hu.max}}}};
}

nlohmann::json report_ports(const Switches& switches) {
  std::uint64_t max_q = 0;
  for (const auto& sw : switches)
    for (std::uint16_t p = 0; p < sw->radix(); ++p) max_q = std::max(max_q, sw->max_backlog(p));
  return {{"max_queue_bytes", max_q}};
}

}  // namespace netasic
