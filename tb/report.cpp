// summary.json and tables.json, one function per section (tb/report.h).
#include "tb/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tlm/model/egress_fc.h"

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
  std::vector<double> fabric_util, host_util;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const TopoLink& l = topology.links[i / 2];
    const double u = end_time ? static_cast<double>(links[i]->busy_time()) / static_cast<double>(end_time) : 0.0;
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

nlohmann::json report_flowcut(const Switches& switches, const Nics& nics, const FlowTable& flows,
                              const std::string& variant) {
  FlowcutCounters c;
  std::uint64_t fgfc_frames = 0, fallbacks = 0, nic_timeouts = 0, high_water = 0, capacity = 0;
  std::uint64_t draining_at_end = 0;  // entries still draining when the run stopped
  for (const auto& sw : switches) {
    c.add(sw->flowcut_counters());
    if (const FlowcutTableIf* t = sw->flowcut_table()) {
      high_water = std::max<std::uint64_t>(high_water, t->high_water());
      capacity = t->config().entries;
      for (std::uint32_t i = 0; i < t->config().entries; ++i) draining_at_end += t->read(i).draining;
    }
  }
  for (const auto& nic : nics) {
    c.add(nic->flowcut_counters());
    fgfc_frames += nic->counters().fgfc_frames;
    fallbacks += nic->counters().fgfc_class_fallbacks;
    nic_timeouts += nic->counters().fgfc_timeouts;
    if (const FlowcutTableIf* t = nic->flowcut_table()) {
      high_water = std::max<std::uint64_t>(high_water, t->high_water());
      capacity = t->config().entries;
    }
  }
  double drain_ps = 0, fct_ps = 0;
  std::uint64_t flowcuts = 0;
  for (const Flow& f : flows.flows()) {
    flowcuts += f.flowcuts;
    if (!f.done()) continue;
    drain_ps += static_cast<double>(f.drain_ps);
    fct_ps += static_cast<double>(f.finish - f.start);
  }
  return {{"variant", variant},
          {"flowcuts", c.flowcuts},
          {"flowcuts_per_flow", flows.size() ? static_cast<double>(flowcuts) / static_cast<double>(flows.size()) : 0.0},
          {"path_changes", c.path_changes},
          {"drains", c.drains},
          {"drains_completed", c.drains_completed},
          {"drain_refreshes", c.drain_refreshes},
          {"drains_abandoned", c.drains_abandoned},
          {"drains_in_progress_at_end", draining_at_end},
          {"early_resumes", c.early_resumes},
          {"drain_fraction_of_fct", fct_ps > 0 ? drain_ps / fct_ps : 0.0},
          {"acks", c.acks_generated},
          {"acks_unmatched", c.acks_unmatched},
          {"acks_lost", c.acks_lost},
          {"fgfc_frames", {{"xoff", c.xoff_frames}, {"xoff_credit", c.xoff_credit_frames}, {"xon", c.xon_frames},
                           {"coalesced", c.fgfc_coalesced}, {"received_by_nics", fgfc_frames},
                           {"class_pause_fallbacks", fallbacks}, {"resumed_on_period_expiry", nic_timeouts}}},
          {"table", {{"entries", capacity}, {"high_water", high_water}, {"overflows", c.overflows},
                     {"untracked_packets", c.untracked_packets}, {"held_packets", c.held_packets}}},
          {"control_frames_dropped", c.control_overflows}};
}

nlohmann::json report_flow_control(const Switches& switches, const Nics& nics, const FlowTable& flows) {
  FcCounters c;
  std::uint64_t nft_collisions = 0, nic_pauses = 0, nic_resumes = 0;
  for (const auto& sw : switches) {
    c.add(sw->egress_fc()->counters());
    nft_collisions += sw->egress_fc()->nft_collisions();
  }
  for (const auto& nic : nics) {
    nic_pauses += nic->counters().pause_frames;
    nic_resumes += nic->counters().resume_frames;
  }
  double paused_ps = 0;
  for (const Flow& f : flows.flows()) paused_ps += static_cast<double>(f.hop_paused_ps);
  const EgressFcConfig& fc = switches.front()->egress_fc()->config();
  return {{"mode", to_string(fc.mode)},
          {"queues", fc.mode == FcMode::ideal ? 0u : fc.queues},
          {"groups", fc.groups},
          {"buffer_bytes", fc.buffer_bytes},
          {"pause_frames", c.pause_frames},
          {"resume_frames", c.resume_frames},
          {"frames_received_by_nics", {{"pause", nic_pauses}, {"resume", nic_resumes}}},
          {"source_paused_us", paused_ps / kPsPerUs},
          {"marked_packets", c.marked_packets},
          {"isolations", c.isolations},
          {"order_mark_pairs", c.order_marks},
          {"order_mark_waits", c.order_mark_waits},
          {"nft_collisions", nft_collisions},
          {"cft_collisions", c.cft_collisions},
          {"max_shared_buffer_bytes", c.max_buffer_bytes},
          {"max_data_queue_bytes", c.max_queue_bytes}};
}

nlohmann::json report_flowcut_tables(const Switches& switches, const Nics& nics) {
  using nlohmann::json;
  json out = json::array();
  auto flowcut_json = [](const std::string& owner, const FlowcutTableIf& t, std::uint64_t overflows) {
    const FlowcutStorage st = t.storage();
    json fields = json::array();
    for (const auto& f : st.fields) fields.push_back({{"name", f.name}, {"bits", f.bits}, {"counted_by_paper", f.counted_by_paper}});
    return json{{"owner", owner},
                {"capacity", t.config().entries},
                {"organization", t.config().organization == FlowcutOrganization::fully_associative ? "cam" : "hashed"},
                {"high_water", t.high_water()},
                {"overflows", overflows},
                {"insert_failures", t.insert_failures()},
                {"occupancy_histogram", {{"bucket_width", t.histogram_bucket_width()}, {"counts", t.occupancy_histogram()}}},
                {"storage", {{"fields", fields}, {"state_bits_per_entry", st.state_bits}, {"state_bytes_per_entry", st.state_bytes()},
                             {"bits_per_entry", st.entry_bits}, {"total_bits", st.total_bits}}}};
  };
  for (const auto& sw : switches) {
    if (const FlowcutTableIf* t = sw->flowcut_table()) out.push_back(flowcut_json(sw->name(), *t, sw->flowcut_counters().overflows));
  }
  for (const auto& nic : nics)
    if (const FlowcutTableIf* t = nic->flowcut_table()) out.push_back(flowcut_json(nic->name(), *t, nic->flowcut_counters().overflows));
  return out;
}

}  // namespace netasic
