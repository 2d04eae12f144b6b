#include "tb/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"
#include "tlm/common/huge_pages.h"
#include "tlm/common/log.h"
#ifdef NETASIC_HAVE_COSIM
#include "tlm/cosim/flowcut_table_rtl.h"
#include "tlm/cosim/flowcut_table_rtl_sc.h"
#endif

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

Simulation::Simulation(const Scenario& scenario) : scenario_(scenario) {
  if (scenario_.boolean("sim.huge_pages")) prepare_huge_page_heap();
  elaborate();
}
Simulation::~Simulation() {
  // SystemC's object registries search from the newest entry: destroying modules newest first keeps
  // teardown linear instead of quadratic in the number of sockets.
  auto newest_first = [](auto& modules) {
    while (!modules.empty()) modules.pop_back();
  };
  newest_first(nics_);
  newest_first(switches_);
  newest_first(links_);
  fabric_.reset();
}

void Simulation::elaborate() {
  const Scenario& s = scenario_;
  topology_ = build_topology(s);
  workload_ = build_workload(s, topology_);
  const Topology& t = topology_;
  const std::uint64_t seed = static_cast<std::uint64_t>(s.integer("sim.seed"));

  // Ports in link order per node.
  ports_.assign(t.nodes, {});
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    ports_[t.links[i].a].push_back(PortRef{i, true});
    ports_[t.links[i].b].push_back(PortRef{i, false});
  }
  auto peer_of = [&](std::uint32_t, const PortRef& r) { return r.forward ? t.links[r.link].b : t.links[r.link].a; };

  // Routing state.
  std::vector<std::vector<std::uint32_t>> port_peer(t.switches());
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) {
    const std::uint32_t node = t.switch_node[sw];
    for (const PortRef& r : ports_[node]) {
      const std::uint32_t peer = peer_of(node, r);
      port_peer[sw].push_back(t.is_switch(peer) ? static_cast<std::uint32_t>(t.switch_index[peer]) : RoutingTable::kHost);
    }
  }
  std::vector<std::uint32_t> host_switch(t.hosts());
  std::vector<std::uint16_t> host_port(t.hosts());
  for (std::uint32_t h = 0; h < t.hosts(); ++h) {
    const std::uint32_t node = t.host_node[h];
    if (ports_[node].size() != 1)
      throw InputError(fmt::format("{}: host node {} has {} links; a host has exactly one", t.description, node,
                                   ports_[node].size()));
    const std::uint32_t sw_node = peer_of(node, ports_[node][0]);
    if (!t.is_switch(sw_node)) throw InputError(fmt::format("host node {} is linked to host node {}", node, sw_node));
    host_switch[h] = static_cast<std::uint32_t>(t.switch_index[sw_node]);
    const auto& sp = ports_[sw_node];
    for (std::uint16_t p = 0; p < sp.size(); ++p)
      if (sp[p].link == ports_[node][0].link) host_port[h] = p;
  }
  routing_ = std::make_unique<RoutingTable>(std::move(port_peer), std::move(host_switch), std::move(host_port),
                                            t.group_of);
  routing_->check_connected();
  const std::string& updown = s.string("routing.up_down");
  if (updown == "on" || (updown == "auto" && (t.kind == "torus" || t.kind == "irregular"))) {
    if (!t.group_of.empty())
      throw InputError("routing.up_down = on: a dragonfly routes through its groups (set routing.up_down: auto or off)");
    routing_->enable_up_down();
  }

  const RoutingPolicy policy = parse_routing_policy(s.string("routing.policy"));
  const bool dragonfly_policy =
      policy == RoutingPolicy::minimal || policy == RoutingPolicy::valiant || policy == RoutingPolicy::ugal;
  if (dragonfly_policy && t.group_of.empty())
    throw InputError(fmt::format("routing.policy = {} needs topology.type dragonfly (accepted here: ecmp, spray, adaptive)",
                                 routing_policy_name(policy)));
  policy_ = policy;
  if (policy == RoutingPolicy::flowcut) {
    const std::string& variant = s.string("flowcut.variant");
    flowcut_.variant = variant == "full_switch"    ? FlowcutVariant::full_switch
                       : variant == "ingress_only" ? FlowcutVariant::ingress_only
                                                   : FlowcutVariant::nic_only;
    flowcut_.table.entries = static_cast<std::uint32_t>(s.integer("flowcut.table.entries"));
    flowcut_.table.organization = s.string("flowcut.table.organization") == "cam"
                                      ? FlowcutOrganization::fully_associative
                                      : FlowcutOrganization::set_associative;
    flowcut_.table.ways = static_cast<unsigned>(s.integer("flowcut.table.ways"));
    // Cycles per operation, as the RTL implementations answer (docs/blocks/flowcut_table.md): the register
    // CAM in 2, the hashed table on RAM in 3 (hash, read, compare).
    flowcut_.table.latency = FlowcutLatency::uniform(
        flowcut_.table.organization == FlowcutOrganization::fully_associative ? 2 : 3);
    flowcut_.table.variant = flowcut_.variant;
    flowcut_.table.key_bits = 104;
    flowcut_.table.port_bits = 8;
    flowcut_.overflow = s.string("flowcut.overflow") == "hold" ? FlowcutOverflow::hold : FlowcutOverflow::untracked;
    flowcut_.shadow_counters = static_cast<std::uint32_t>(s.integer("flowcut.shadow_counters"));
    flowcut_.alpha = s.number("flowcut.alpha");
    flowcut_.rtt_ratio_threshold = s.number("flowcut.rtt_ratio_threshold");
    flowcut_.rtt_diff_threshold = s.number("flowcut.rtt_diff_threshold");
    flowcut_.ack_bytes = static_cast<std::uint32_t>(s.integer("flowcut.ack_bytes"));
    flowcut_.timestamp_bytes = static_cast<std::uint32_t>(s.integer("flowcut.timestamp_bytes"));
    flowcut_.data_header_bytes = static_cast<std::uint32_t>(s.integer("nic.header_bytes"));
    flowcut_.pause_period_ps = static_cast<Ps>(s.number("flowcut.pause_period_us") * kPsPerUs);
    flowcut_.xoff_credit_bytes = static_cast<std::uint32_t>(s.integer("flowcut.xoff_credit_bytes"));
    flowcut_.xoff_with_credit = flowcut_.xoff_credit_bytes > 0;
    flowcut_.min_packets_left = static_cast<std::uint32_t>(s.integer("flowcut.min_packets_left"));
    flowcut_.early_resume_packets = static_cast<std::uint32_t>(s.integer("flowcut.early_resume_packets"));
    flowcut_.max_payload_bytes = static_cast<std::uint32_t>(s.integer("nic.mtu_bytes"));  // early resume's unit
    flowcut_.nic_cache_entries = static_cast<std::uint32_t>(s.integer("flowcut.nic_cache_entries"));
    flowcut_.fgfc_gap_cycles = static_cast<std::uint32_t>(s.integer("flowcut.fgfc_gap_cycles"));
    flowcut_.ack_loss = s.number("failures.flowcut_ack_loss");
    // The tables are built by the switch and NIC constructors below, i.e. during SystemC elaboration, as
    // the SystemC-output adapter (rtl_sc) requires.
    const std::string& impl = s.string("switch.flowcut_table.impl");
    if (impl == "rtl" || impl == "rtl_sc") {
#ifdef NETASIC_HAVE_COSIM
      flowcut_.table_factory = impl == "rtl" ? make_rtl_flowcut_table : make_rtl_sc_flowcut_table;
#else
      throw InputError("switch.flowcut_table.impl = " + impl +
                       ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
    }
    // Reject impossible tables now, naming the keys (the block model checks the same).
    if (flowcut_.table.organization == FlowcutOrganization::set_associative) {
      const auto sets = flowcut_.table.entries / flowcut_.table.ways;
      if (flowcut_.table.entries % flowcut_.table.ways || (sets & (sets - 1)))
        throw InputError(fmt::format("flowcut.table.entries / flowcut.table.ways = {} / {} must be a power of two "
                                     "(the number of sets)",
                                     flowcut_.table.entries, flowcut_.table.ways));
    }
  }
  if (policy == RoutingPolicy::flowcut && flowcut_.variant == FlowcutVariant::full_switch) {
    // Full-switch ACKs retrace the data path recorded in the packet: at most Packet::kMaxPath switches.
    std::uint32_t diameter = 0;
    for (std::uint32_t a = 0; a < t.switches(); ++a)
      for (std::uint32_t b = 0; b < t.switches(); ++b) diameter = std::max<std::uint32_t>(diameter, routing_->distance(a, b));
    if (diameter + 3 > static_cast<std::uint32_t>(Packet::kMaxPath))
      throw InputError(fmt::format("flowcut.variant = full_switch: paths of up to {} switches exceed the {} a "
                                   "Flowcut ACK can retrace; use ingress_only or nic_only",
                                   diameter + 3, Packet::kMaxPath));
  }
  std::uint8_t vcs = 2;
  if (!t.group_of.empty())
    vcs = (policy == RoutingPolicy::valiant || policy == RoutingPolicy::ugal) ? 4 : 3;

  // NIC.
  nic_config_.mtu_bytes = static_cast<std::uint32_t>(s.integer("nic.mtu_bytes"));
  nic_config_.header_bytes = static_cast<std::uint32_t>(s.integer("nic.header_bytes"));
  nic_config_.ack_bytes = static_cast<std::uint32_t>(s.integer("nic.ack_bytes"));
  nic_config_.window_bytes = static_cast<std::uint64_t>(s.integer("nic.window_bytes"));
  nic_config_.latency_ps = ns_to_ps(s.number("nic.latency_ns"));
  const bool lossless = s.string("link.flow_control") == "lossless";
  bool can_lose = !lossless;
  for (const auto& l : t.links) can_lose = can_lose || l.error_rate > 0;
  nic_config_.rto_ps = can_lose ? static_cast<Ps>(s.number("nic.rto_us") * kPsPerUs) : 0;
  if (policy == RoutingPolicy::flowcut) nic_config_.flowcut = &flowcut_;
  {
    const std::string& t = s.string("nic.transport");
    nic_config_.transport = t == "gbn"      ? TransportKind::go_back_n
                            : t == "sr"      ? TransportKind::selective_repeat
                            : t == "reorder" ? TransportKind::reorder
                                             : TransportKind::basic;
  }
  nic_config_.sr_dupthresh = static_cast<std::uint32_t>(s.integer("nic.sr.dupthresh"));
  nic_config_.sr_sack_blocks = static_cast<std::uint32_t>(s.integer("nic.sr.sack_blocks"));
  nic_config_.cc = s.string("nic.cc") == "dctcp" ? CongestionControlKind::dctcp : CongestionControlKind::none;
  nic_config_.dctcp_config.g = s.number("nic.dctcp.g");
  nic_config_.dctcp_config.mss = nic_config_.mtu_bytes;
  nic_config_.dctcp_config.initial_window = static_cast<std::uint64_t>(s.integer("nic.dctcp.initial_window_bytes"));
  nic_config_.dctcp_config.max_window = nic_config_.window_bytes;
  nic_config_.dctcp_config.slow_start = s.string("nic.dctcp.slow_start") == "on";
  if (nic_config_.transport == TransportKind::reorder) {
    const auto unit = static_cast<std::uint32_t>(s.integer("nic.reorder.unit_bytes"));
    const auto buffer = static_cast<std::uint64_t>(s.integer("nic.reorder.buffer_bytes"));
    const auto pool = static_cast<std::uint64_t>(s.integer("nic.reorder.pool_bytes"));
    ReorderBufferConfig& rb = nic_config_.reorder_buffer;
    rb.seq_bits = 32;
    rb.max_packet_units = (nic_config_.mtu_bytes + nic_config_.header_bytes + unit - 1) / unit;
    rb.buffer_units = static_cast<std::uint32_t>(buffer / unit);
    if (rb.buffer_units < rb.max_packet_units)
      throw InputError(fmt::format("nic.reorder.buffer_bytes = {} holds {} cells of nic.reorder.unit_bytes = {}; one "
                                   "packet of {} bytes needs {}",
                                   buffer, rb.buffer_units, unit, nic_config_.mtu_bytes + nic_config_.header_bytes,
                                   rb.max_packet_units));
    if (rb.buffer_units > (1u << 20))
      throw InputError(fmt::format("nic.reorder.buffer_bytes / nic.reorder.unit_bytes = {} cells: at most 2^20", rb.buffer_units));
    rb.memory = s.string("nic.reorder.memory") == "static" ? ReorderMemory::static_partition : ReorderMemory::dynamic_pool;
    nic_config_.pair_connections = s.string("nic.reorder.connection") == "pair";
    rb.pool_units = pool / unit;
    if (rb.memory == ReorderMemory::dynamic_pool && rb.pool_units < rb.max_packet_units)
      throw InputError(fmt::format("nic.reorder.pool_bytes = {} cannot hold one packet", pool));
    const std::string& inj = s.string("nic.reorder.injection");
    nic_config_.injection = inj == "unlimited" ? NicConfig::Injection::unlimited
                            : inj == "adap_li" ? NicConfig::Injection::adap_li
                                               : NicConfig::Injection::adap_lw;
    if (nic_config_.injection == NicConfig::Injection::adap_lw && rb.memory != ReorderMemory::static_partition)
      throw InputError("nic.reorder.injection = adap_lw needs nic.reorder.memory = static (the window is the "
                       "destination's partition)");
    nic_config_.reorder_unit_bytes = unit;
  }

  const std::uint32_t max_packet = nic_config_.mtu_bytes + nic_config_.header_bytes;
  const auto in_buf = static_cast<std::uint32_t>(s.integer("switch.input_buffer_bytes"));
  const auto ctl_buf = static_cast<std::uint32_t>(s.integer("switch.control_buffer_bytes"));
  const auto rx_buf = static_cast<std::uint32_t>(s.integer("nic.rx_buffer_bytes"));
  const auto eq_bytes = static_cast<std::uint32_t>(s.integer("switch.egress_queue_bytes"));
  if (in_buf < max_packet)
    throw InputError(fmt::format("switch.input_buffer_bytes = {} cannot hold one packet of nic.mtu_bytes + "
                                 "nic.header_bytes = {} bytes",
                                 in_buf, max_packet));
  if (eq_bytes < max_packet)
    throw InputError(fmt::format("switch.egress_queue_bytes = {} cannot hold one packet of {} bytes", eq_bytes, max_packet));
  if (rx_buf < max_packet)
    throw InputError(fmt::format("nic.rx_buffer_bytes = {} cannot hold one packet of {} bytes", rx_buf, max_packet));
  const std::uint32_t max_ack =
      nic_config_.ack_bytes + ((nic_config_.transport == TransportKind::selective_repeat) ? 8 * nic_config_.sr_sack_blocks : 0);  // SACK ranges
  if (ctl_buf < max_ack)
    throw InputError(fmt::format("switch.control_buffer_bytes = {} cannot hold one ACK of {} bytes (nic.ack_bytes "
                                 "plus the SACK ranges)",
                                 ctl_buf, max_ack));

  // The event queue's horizon: the longest hop (propagation and two serializations of a full packet on the
  // slowest link, the cut-through bound), the switch pipeline and the NIC's receive latency, with a margin.
  double longest_hop_ns = 0;
  for (const TopoLink& l : t.links) {
    const double ser_ns = (max_packet + s.integer("link.overhead_bytes")) * 8.0 / (l.rate_gbps * l.scale);
    longest_hop_ns = std::max(longest_hop_ns, l.delay_ns + 2 * ser_ns);
  }
  const double horizon_ns =
      1.25 * (longest_hop_ns + s.number("switch.latency_ns") + ps_to_ns(nic_config_.latency_ps));
  fabric_ = std::make_unique<Fabric>("fabric", ns_to_ps(s.number("sim.sync_quantum_ns")), ns_to_ps(horizon_ns));
  if (s.number("sim.max_time_us") > 0) fabric_->set_time_limit(static_cast<Ps>(s.number("sim.max_time_us") * kPsPerUs));

  // Links: two per topology link.
  auto credits_for = [&](std::uint32_t receiver) {
    std::vector<std::uint32_t> c(vcs, in_buf);
    if (t.is_switch(receiver)) c[0] = ctl_buf;
    else std::fill(c.begin(), c.end(), rx_buf);
    return c;
  };
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    for (int dir = 0; dir < 2; ++dir) {
      LinkConfig lc;
      lc.rate_gbps = l.rate_gbps;
      lc.rate_scale = l.scale;
      lc.prop_ps = ns_to_ps(l.delay_ns);
      lc.overhead_bytes = static_cast<std::uint32_t>(s.integer("link.overhead_bytes"));
      lc.lossless = lossless;
      lc.error_rate = l.error_rate;
      const std::uint32_t from = dir == 0 ? l.a : l.b, to = dir == 0 ? l.b : l.a;
      lc.vc_credit_bytes = credits_for(to);
      links_.push_back(std::make_unique<Link>(fmt::format("link_{}_{}", from, to).c_str(), *fabric_, lc, seed,
                                              static_cast<std::uint32_t>(links_.size())));
    }
  }

  // Hop-by-hop flow control at the egress queues.
  EgressFcConfig fc_config;
  {
    const std::string m = s.string("switch.flow_control");
    fc_config.mode = m == "flowsail" ? FcMode::flowsail
                   : m == "bfc"      ? FcMode::bfc
                   : m == "pfc"      ? FcMode::pfc
                   : m == "ideal"    ? FcMode::ideal
                                     : FcMode::none;
    fc_config.queues = static_cast<unsigned>(s.integer("switch.fc.queues"));
    fc_config.groups = static_cast<unsigned>(s.integer("switch.fc.groups"));
    fc_config.drr = s.string("switch.fc.scheduler") == "drr";
    fc_config.quantum_bytes = max_packet;
    fc_config.buffer_bytes = static_cast<std::uint64_t>(s.integer("switch.fc.buffer_bytes"));
    fc_config.q_low_bytes = static_cast<std::uint32_t>(s.integer("switch.fc.q_low_bytes"));
    fc_config.q_high_bytes = static_cast<std::uint32_t>(s.integer("switch.fc.q_high_bytes"));
    fc_config.nft_entries = static_cast<std::uint32_t>(s.integer("switch.fc.nft_entries"));
    fc_config.cft_entries = static_cast<std::uint32_t>(s.integer("switch.fc.cft_entries"));
    fc_config.pfc_xoff_bytes = static_cast<std::uint32_t>(s.integer("switch.pfc.xoff_bytes"));
    fc_config.pfc_xon_bytes = static_cast<std::uint32_t>(s.integer("switch.pfc.xon_bytes"));
    for (const char* key : {"switch.fc.nft_entries", "switch.fc.cft_entries"}) {
      const auto v = s.integer(key);
      if (v & (v - 1)) throw InputError(fmt::format("{} = {}: must be a power of two", key, v));
    }
  }
  // Switches.
  switch_latency_ps_ = ns_to_ps(s.number("switch.latency_ns"));
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) {
    const std::uint32_t node = t.switch_node[sw];
    SwitchConfig sc;
    sc.radix = static_cast<std::uint16_t>(ports_[node].size());
    sc.ports_per_tile = static_cast<std::uint16_t>(s.integer("switch.ports_per_tile"));
    sc.tile_columns = static_cast<std::uint16_t>(s.integer("switch.tile_columns"));
    sc.clock_ghz = s.number("switch.clock_ghz");
    sc.latency_ps = switch_latency_ps_;
    sc.ingress_ps = ns_to_ps(s.number("switch.ingress_latency_ns"));
    sc.egress_queues = static_cast<std::uint32_t>(s.integer("switch.egress_queues"));
    sc.egress_queue_bytes = eq_bytes;
    sc.egress_queue_packets = static_cast<std::uint32_t>(s.integer("switch.egress_queue_packets"));
    double fastest = 0;
    for (const PortRef& r : ports_[node]) fastest = std::max(fastest, t.links[r.link].rate_gbps);
    sc.internal_gbps = s.number("switch.internal_speedup") * fastest;
    sc.policy = policy;
    sc.vcs = vcs;
    sc.lossless = lossless;
    sc.vc_buffer_bytes = credits_for(node);
    sc.ugal_bias_bytes = s.number("routing.ugal_bias_bytes");
    sc.max_packet_bytes = max_packet;
    sc.fc = fc_config;
    sc.ecn_threshold_bytes = static_cast<std::uint64_t>(s.integer("switch.ecn_threshold_bytes"));
    if (policy == RoutingPolicy::flowcut && flowcut_.variant != FlowcutVariant::nic_only) sc.flowcut = &flowcut_;
    if (policy == RoutingPolicy::letflow) {
      const auto entries = static_cast<std::uint32_t>(s.integer("letflow.entries"));
      if (entries & (entries - 1))
        throw InputError(fmt::format("letflow.entries = {}: must be a power of two", entries));
      sc.letflow_table.entries = entries;
      sc.letflow_table.key_bits = 104;
      sc.letflow_delta_ps = static_cast<Ps>(s.number("letflow.timeout_us") * kPsPerUs);
    }
    switches_.push_back(std::make_unique<Switch>(fmt::format("sw{}", sw).c_str(), *fabric_, sc, *routing_, sw, seed));
    switches_.back()->set_flows(&flows_);
  }

  // NICs and flows.
  for (std::uint32_t h = 0; h < t.hosts(); ++h)
    nics_.push_back(std::make_unique<Nic>(fmt::format("nic{}", h).c_str(), *fabric_, nic_config_, flows_, h, seed));

  // Bind sockets: the sender's initiator to the link's target, the link's initiator to the receiver.
  for (std::uint32_t n = 0; n < t.nodes; ++n) {
    for (std::uint16_t p = 0; p < ports_[n].size(); ++p) {
      const PortRef& r = ports_[n][p];
      Link* out_link = links_[2 * r.link + (r.forward ? 0 : 1)].get();
      Link* in_link = links_[2 * r.link + (r.forward ? 1 : 0)].get();
      if (t.is_switch(n)) {
        Switch& sw = *switches_[static_cast<std::size_t>(t.switch_index[n])];
        sw.out[p]->bind(out_link->in);
        in_link->out.bind(*sw.in[p]);
        sw.attach(p, in_link, out_link);
      } else {
        Nic& nic = *nics_[static_cast<std::size_t>(t.host_index[n])];
        nic.out.bind(out_link->in);
        in_link->out.bind(nic.in);
        nic.attach(in_link, out_link);
      }
    }
  }

  auto& flows = flows_.flows();
  flows.resize(workload_.flows.size());
  for (std::uint32_t id = 0; id < workload_.flows.size(); ++id) {
    const FlowSpec& spec = workload_.flows[id];
    Flow& f = flows[id];
    f.id = id;
    f.src = spec.src;
    f.dst = spec.dst;
    f.size_bytes = spec.size_bytes;
    f.start = spec.start;
    f.tclass = spec.tclass;
    f.key.src_addr = 0x0A000000u + spec.src;
    f.key.dst_addr = 0x0A000000u + spec.dst;
    f.key.src_port = static_cast<std::uint16_t>(49152 + id % 16384);
    f.key.dst_port = spec.dport;
    const auto bytes = f.key.bytes();
    f.hash = crc32(bytes.data(), bytes.size());
    nics_[spec.src]->add_flow(id);
    nics_[spec.dst]->add_incoming_flow(id);
  }
  for (auto& nic : nics_) nic->finish_setup();
}

std::uint64_t Simulation::packet_hops() const {
  std::uint64_t hops = 0;
  for (const auto& l : links_) hops += l->packets_sent();
  return hops;
}

void Simulation::run(const RunOptions& options) {
  if (ran_) throw ModelError("a Simulation runs once (SystemC elaborates once per process)");
  ran_ = true;
  if (scenario_.boolean("sim.huge_pages")) {
    // Part of building the model, like elaboration: before the clock starts.
    const auto h0 = std::chrono::steady_clock::now();
    const std::string account = use_huge_pages();
    netasic::log(LogLevel::info, "{} in {:.3f} s", account,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count());
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t last_events = 0;
  auto last_t = t0;
  if (options.progress) {
    fabric_->set_progress(
        [&, this] {
          const auto now = std::chrono::steady_clock::now();
          const double dt = std::chrono::duration<double>(now - last_t).count();
          const double rate = dt > 0 ? static_cast<double>(fabric_->events() - last_events) / dt : 0;
          last_events = fabric_->events();
          last_t = now;
          std::fprintf(stderr, "\rnetasic: sim %.3f us | flows %llu/%zu done | %.2f M events/s | wall %.0f s   ",
                       ps_to_ns(fabric_->now()) / 1000.0, static_cast<unsigned long long>(flows_.completed()),
                       flows_.size(), rate / 1e6, std::chrono::duration<double>(now - t0).count());
          std::fflush(stderr);
        },
        options.progress_interval_s);
  }
  sc_core::sc_start();
  wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  end_time_ = fabric_->now();
  if (options.progress && wall_seconds_ >= options.progress_interval_s) std::fprintf(stderr, "\n");
}

Ps Simulation::ideal_fct(const Flow& f) const {
  const Topology& t = topology_;
  auto link_at = [&](std::uint32_t node, std::uint16_t port) -> const TopoLink& {
    return t.links[ports_[node][port].link];
  };
  const TopoLink& first = link_at(t.host_node[f.src], 0);
  const TopoLink& last = link_at(t.host_node[f.dst], 0);
  double prop_ns = first.delay_ns + last.delay_ns;
  double rate = std::min(first.rate_gbps, last.rate_gbps);
  std::uint32_t sw = routing_->host_switch(f.src);
  const std::uint32_t dst_sw = routing_->host_switch(f.dst);
  std::uint32_t switches = 1;
  bool went_down = false;
  while (sw != dst_sw) {
    std::uint32_t n = 0;
    const std::uint16_t port = routing_->up_down() ? routing_->next_hops_updown(sw, dst_sw, went_down, n)[0]
                                                   : routing_->next_hops(sw, dst_sw, n)[0];
    if (routing_->up_down() && !routing_->is_up(sw, port)) went_down = true;
    const TopoLink& l = link_at(t.switch_node[sw], port);
    prop_ns += l.delay_ns;
    rate = std::min(rate, l.rate_gbps);
    sw = routing_->peer(sw, port);
    ++switches;
  }
  const std::uint64_t packets = (f.size_bytes + nic_config_.mtu_bytes - 1) / nic_config_.mtu_bytes;
  const std::uint64_t wire = f.size_bytes + packets * (nic_config_.header_bytes + scenario_.integer("link.overhead_bytes"));
  return ns_to_ps(prop_ns) + switches * switch_latency_ps_ + serialization_ps(wire, rate) + nic_config_.latency_ps;
}

nlohmann::json Simulation::summary() const {
  using nlohmann::json;
  json j;
  j["seed"] = scenario_.integer("sim.seed");
  j["topology"] = topology_.description;
  j["workload"] = workload_.description;
  j["sim_time_ns"] = ps_to_ns(end_time_);
  j["wall_seconds"] = wall_seconds_;
  j["events"] = fabric_->events();
  j["packet_hops"] = packet_hops();
  j["packet_hops_per_second"] = wall_seconds_ > 0 ? static_cast<double>(packet_hops()) / wall_seconds_ : 0.0;
  j["hit_time_limit"] = fabric_->hit_time_limit();

  std::vector<double> fct, slowdown;
  std::vector<std::vector<double>> bucket_fct(std::size(kBuckets)), bucket_sd(std::size(kBuckets));
  std::uint64_t path_changes = 0, retransmits = 0, timeouts = 0;
  for (const Flow& f : flows_.flows()) {
    path_changes += f.path_changes;
    retransmits += f.retransmits;
    timeouts += f.timeouts;
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
  j["flows"]["count"] = flows_.size();
  j["flows"]["completed"] = flows_.completed();
  j["flows"]["fct_ns"] = to_json(stats_of(fct));
  j["flows"]["slowdown"] = to_json(stats_of(slowdown));
  j["flows"]["path_changes"] = path_changes;
  json buckets = json::array();
  for (std::size_t b = 0; b < std::size(kBuckets); ++b) {
    if (bucket_fct[b].empty()) continue;
    buckets.push_back({{"bucket", kBuckets[b].name},
                       {"flows", bucket_fct[b].size()},
                       {"fct_ns", to_json(stats_of(bucket_fct[b]))},
                       {"slowdown", to_json(stats_of(bucket_sd[b]))}});
  }
  j["flows"]["by_size"] = buckets;

  NicCounters n{};
  for (const auto& nic : nics_) {
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
  const double waste_fraction =
      n.received_bytes ? static_cast<double>(n.waste_bytes) / static_cast<double>(n.received_bytes) : 0.0;
  std::uint64_t switch_drops = 0, corrupted = 0;
  for (const auto& sw : switches_) switch_drops += sw->counters().packets_dropped;
  for (const auto& l : links_) corrupted += l->corrupted();
  j["packets"] = {{"injected", n.data_packets_sent},
                  {"retransmitted", retransmits},
                  {"delivered", n.data_packets_received},
                  {"duplicates", n.duplicates},
                  {"dropped", switch_drops + corrupted},
                  {"dropped_by_switches", switch_drops},
                  {"corrupted_on_links", corrupted},
                  {"control_sent", n.control_packets_sent},
                  {"control_queue_overflows", n.control_dropped},
                  {"out_of_order", n.ooo_packets},
                  {"ooo_fraction", n.data_packets_received
                                       ? static_cast<double>(n.ooo_packets) / static_cast<double>(n.data_packets_received)
                                       : 0.0},
                  {"max_ooo_degree", n.max_ooo_degree},
                  {"late", n.late_packets}};
  j["packets"]["timeouts"] = timeouts;
  j["packets"]["app_out_of_order"] = n.app_out_of_order;
  j["packets"]["spurious_retransmissions"] = n.spurious_resends;
  if (nic_config_.transport == TransportKind::go_back_n) {
    j["go_back_n"] = {{"receiver_drops", n.receiver_drops},
                      {"nacks", n.nacks_sent},
                      {"retransmitted_bytes", n.resent_bytes},
                      {"spurious_retransmissions", n.spurious_resends},
                      {"waste_fraction", waste_fraction}};
  }
  if ((nic_config_.transport == TransportKind::selective_repeat)) {
    std::uint64_t max_ranges = 0;
    for (const Flow& f : flows_.flows())
      if (const SackReceiver* rx = nics_[f.dst]->transport().sack_receiver(f))
        max_ranges = std::max<std::uint64_t>(max_ranges, rx->max_ranges());
    j["selective_repeat"] = {{"dupthresh", nic_config_.sr_dupthresh},
                             {"sack_blocks", nic_config_.sr_sack_blocks},
                             {"sacks", n.sacks_sent},
                             {"sack_ranges_sent", n.sack_blocks_sent},
                             {"max_ranges_per_flow", max_ranges},
                             {"fast_retransmits", n.fast_retransmits},
                             {"timeout_retransmits", n.timeout_retransmits},
                             {"retransmitted_bytes", n.resent_bytes},
                             {"spurious_retransmissions", n.spurious_resends},
                             {"waste_fraction", waste_fraction}};
  }
  if (nic_config_.transport == TransportKind::reorder) {
    std::uint64_t mbs = 0, mms = 0, rejections = 0;
    std::vector<std::uint64_t> hist(16, 0);
    for (const auto& nic : nics_) {
      const ReorderBuffer* rb = nic->reorder_buffer();
      mbs = std::max<std::uint64_t>(mbs, rb->mbs());
      mms = std::max<std::uint64_t>(mms, rb->mms());
      rejections += rb->rejections();
      for (std::size_t b = 0; b < hist.size(); ++b) hist[b] += nic->reorder_histogram()[b];
    }
    const std::uint64_t unit = nic_config_.reorder_unit_bytes;
    j["reorder"] = {{"memory", scenario_.string("nic.reorder.memory")},
                    {"injection", scenario_.string("nic.reorder.injection")},
                    {"max_buffer_per_connection_bytes", mbs * unit},
                    {"max_memory_per_nic_bytes", mms * unit},
                    {"rejections", rejections},
                    {"nacks", n.nacks_sent},
                    {"retransmitted_bytes", n.resent_bytes},
                    {"spurious_retransmissions", n.spurious_resends},
                    {"waste_fraction", waste_fraction},
                    {"occupancy_histogram_16ths", hist}};
  }
  j["bytes"] = {{"injected", n.data_payload_sent}, {"delivered", n.payload_delivered}, {"retransmitted", n.resent_bytes}};
  std::uint64_t ce_marks = 0;
  for (const auto& sw : switches_) ce_marks += sw->counters().ce_marked;
  const auto ecn_threshold = scenario_.integer("switch.ecn_threshold_bytes");
  if (ecn_threshold > 0 || nic_config_.cc == CongestionControlKind::dctcp) j["ecn"] = {{"threshold_bytes", ecn_threshold}, {"ce_marks", ce_marks}};
  if (nic_config_.cc == CongestionControlKind::dctcp) {
    std::uint64_t cuts = 0, windows = 0, senders = 0;
    double alpha_sum = 0, alpha_final_max = 0, alpha_max = 0, window_sum = 0;
    std::uint64_t min_window = std::numeric_limits<std::uint64_t>::max();
    for (const Flow& f : flows_.flows()) {
      const CongestionControl* control = nics_[f.src]->transport().congestion_control();
      const Dctcp* cc = control ? control->dctcp(f) : nullptr;
      if (!cc) continue;
      ++senders;
      cuts += cc->cuts();
      windows += cc->windows();
      alpha_sum += cc->alpha();
      alpha_final_max = std::max(alpha_final_max, cc->alpha());
      alpha_max = std::max(alpha_max, cc->max_alpha());
      window_sum += static_cast<double>(cc->window());
      min_window = std::min(min_window, cc->min_window());
    }
    const double k = senders ? static_cast<double>(senders) : 1.0;
    j["congestion_control"] = {{"type", "dctcp"},
                               {"g", nic_config_.dctcp_config.g},
                               {"initial_window_bytes", nic_config_.dctcp_config.initial_window},
                               {"ece_acks", n.ece_acks},
                               {"window_cuts", cuts},
                               {"alpha_updates", windows},
                               {"alpha_final_avg", alpha_sum / k},
                               {"alpha_final_max", alpha_final_max},
                               {"alpha_max", alpha_max},
                               {"window_final_avg_bytes", window_sum / k},
                               {"window_min_bytes", senders ? min_window : 0}};
  }

  // Link utilization over the run, switch-to-switch and host links apart.
  std::vector<double> fabric_util, host_util;
  for (std::size_t i = 0; i < links_.size(); ++i) {
    const TopoLink& l = topology_.links[i / 2];
    const double u = end_time_ ? static_cast<double>(links_[i]->busy_time()) / static_cast<double>(end_time_) : 0.0;
    (topology_.is_switch(l.a) && topology_.is_switch(l.b) ? fabric_util : host_util).push_back(u);
  }
  const Stats fu = stats_of(fabric_util), hu = stats_of(host_util);
  j["links"] = {{"switch_links", {{"count", fu.count}, {"utilization_avg", fu.avg}, {"utilization_max", fu.max}}},
                {"host_links", {{"count", hu.count}, {"utilization_avg", hu.avg}, {"utilization_max", hu.max}}}};
  std::uint64_t max_q = 0;
  for (const auto& sw : switches_)
    for (std::uint16_t p = 0; p < sw->radix(); ++p) max_q = std::max(max_q, sw->max_backlog(p));
  j["ports"] = {{"max_queue_bytes", max_q}};
  if (policy_ == RoutingPolicy::flowcut) {
    FlowcutCounters c;
    std::uint64_t fgfc_frames = 0, fallbacks = 0, nic_timeouts = 0, high_water = 0, capacity = 0;
    std::uint64_t draining_at_end = 0;  // entries still draining when the run stopped
    for (const auto& sw : switches_) {
      c.add(sw->flowcut_counters());
      if (const FlowcutTableIf* t = sw->flowcut_table()) {
        high_water = std::max<std::uint64_t>(high_water, t->high_water());
        capacity = t->config().entries;
        for (std::uint32_t i = 0; i < t->config().entries; ++i) draining_at_end += t->read(i).draining;
      }
    }
    for (const auto& nic : nics_) {
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
    for (const Flow& f : flows_.flows()) {
      flowcuts += f.flowcuts;
      if (!f.done()) continue;
      drain_ps += static_cast<double>(f.drain_ps);
      fct_ps += static_cast<double>(f.finish - f.start);
    }
    j["flowcut"] = {{"variant", scenario_.string("flowcut.variant")},
                    {"flowcuts", c.flowcuts},
                    {"flowcuts_per_flow", flows_.size() ? static_cast<double>(flowcuts) / static_cast<double>(flows_.size()) : 0.0},
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
  if (!switches_.empty() && switches_.front()->egress_fc()) {
    FcCounters c;
    std::uint64_t nft_collisions = 0, nic_pauses = 0, nic_resumes = 0;
    for (const auto& sw : switches_) {
      c.add(sw->egress_fc()->counters());
      nft_collisions += sw->egress_fc()->nft_collisions();
    }
    for (const auto& nic : nics_) {
      nic_pauses += nic->counters().pause_frames;
      nic_resumes += nic->counters().resume_frames;
    }
    double paused_ps = 0;
    for (const Flow& f : flows_.flows()) paused_ps += static_cast<double>(f.hop_paused_ps);
    const EgressFcConfig& fc = switches_.front()->egress_fc()->config();
    j["flow_control"] = {{"mode", to_string(fc.mode)},
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
  if (policy_ == RoutingPolicy::letflow) {
    std::uint64_t flowlets = 0, collisions = 0, high_water = 0;
    for (const auto& sw : switches_)
      if (const FlowletTable* t = sw->flowlet_table()) {
        flowlets += t->flowlets();
        collisions += t->collisions();
        high_water = std::max<std::uint64_t>(high_water, t->high_water());
      }
    j["letflow"] = {{"flowlets", flowlets}, {"collisions", collisions}, {"table_high_water", high_water}};
  }
  j["scenario"] = scenario_.to_json();
  return j;
}

nlohmann::json Simulation::tables() const {
  using nlohmann::json;
  json out = {{"flowcut", json::array()}, {"flowlet", json::array()}};
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
  for (const auto& sw : switches_) {
    if (const FlowcutTableIf* t = sw->flowcut_table()) out["flowcut"].push_back(flowcut_json(sw->name(), *t, sw->flowcut_counters().overflows));
    if (const FlowletTable* t = sw->flowlet_table())
      out["flowlet"].push_back({{"owner", sw->name()}, {"capacity", t->config().entries}, {"high_water", t->high_water()},
                                {"flowlets", t->flowlets()}, {"collisions", t->collisions()},
                                {"bits_per_entry", t->entry_bits()}, {"total_bits", t->storage_bits()}});
  }
  for (const auto& nic : nics_)
    if (const FlowcutTableIf* t = nic->flowcut_table()) out["flowcut"].push_back(flowcut_json(nic->name(), *t, nic->flowcut_counters().overflows));
  return out;
}

std::string Simulation::summary_table() const {
  const nlohmann::json j = summary();
  std::string out;
  auto row = [&out](const std::string& k, const std::string& v) { out += fmt::format("  {:<28} {}\n", k, v); };
  auto us = [](double ns) { return fmt::format("{:.3f} us", ns / 1000.0); };
  out += "netasic run summary\n";
  row("topology", j["topology"].get<std::string>());
  row("workload", j["workload"].get<std::string>());
  row("routing", scenario_.string("routing.policy") + ", " + scenario_.string("link.flow_control"));
  row("seed", std::to_string(j["seed"].get<std::int64_t>()));
  row("simulated time", us(j["sim_time_ns"].get<double>()));
  row("flows completed", fmt::format("{} / {}", j["flows"]["completed"].get<std::uint64_t>(),
                                     j["flows"]["count"].get<std::uint64_t>()));
  const auto& fct = j["flows"]["fct_ns"];
  row("FCT avg / p50", fmt::format("{} / {}", us(fct["avg"]), us(fct["p50"])));
  row("FCT p99 / p99.9 / max", fmt::format("{} / {} / {}", us(fct["p99"]), us(fct["p999"]), us(fct["max"])));
  const auto& sd = j["flows"]["slowdown"];
  row("slowdown avg / p50 / p99", fmt::format("{:.3f} / {:.3f} / {:.3f}", sd["avg"].get<double>(),
                                              sd["p50"].get<double>(), sd["p99"].get<double>()));
  const auto& p = j["packets"];
  row("packets injected / delivered", fmt::format("{} / {}", p["injected"].get<std::uint64_t>(),
                                                  p["delivered"].get<std::uint64_t>()));
  row("packets dropped / resent", fmt::format("{} / {}", p["dropped"].get<std::uint64_t>(),
                                              p["retransmitted"].get<std::uint64_t>()));
  row("out of order", fmt::format("{} ({:.4f}%), max degree {}", p["out_of_order"].get<std::uint64_t>(),
                                  100.0 * p["ooo_fraction"].get<double>(), p["max_ooo_degree"].get<std::uint64_t>()));
  row("bytes injected / delivered", fmt::format("{} / {}", j["bytes"]["injected"].get<std::uint64_t>(),
                                                j["bytes"]["delivered"].get<std::uint64_t>()));
  row("switch-link utilization", fmt::format("avg {:.1f}%, max {:.1f}%",
                                             100.0 * j["links"]["switch_links"]["utilization_avg"].get<double>(),
                                             100.0 * j["links"]["switch_links"]["utilization_max"].get<double>()));
  row("max port queue", fmt::format("{} bytes", j["ports"]["max_queue_bytes"].get<std::uint64_t>()));
  if (j.contains("selective_repeat"))
    row("resent bytes / spurious", fmt::format("{} / {}", j["bytes"]["retransmitted"].get<std::uint64_t>(),
                                               p["spurious_retransmissions"].get<std::uint64_t>()));
  if (j.contains("ecn")) row("CE marks", fmt::format("{}", j["ecn"]["ce_marks"].get<std::uint64_t>()));
  row("events / packet-hops", fmt::format("{} / {}", j["events"].get<std::uint64_t>(),
                                          j["packet_hops"].get<std::uint64_t>()));
  row("wall time", fmt::format("{:.2f} s ({:.2f} M packet-hops/s)", j["wall_seconds"].get<double>(),
                               j["packet_hops_per_second"].get<double>() / 1e6));
  if (j["hit_time_limit"].get<bool>()) out += "  (stopped at sim.max_time_us)\n";
  return out;
}

std::string Simulation::incomplete_report(std::size_t max) const {
  std::string out;
  std::size_t shown = 0;
  for (const Flow& f : flows_.flows()) {
    if (f.done()) continue;
    if (shown++ == max) {
      out += "  ...\n";
      break;
    }
    out += fmt::format("  flow {} host {} -> {}: {} packets; sender next {} acked {}{}, in flight {} B{}; "
                       "receiver expects {}, delivered {} B\n",
                       f.id, f.src, f.dst, f.packets, f.next_psn, f.acked_count,
                       nics_[f.src]->transport().sender_detail(f), f.inflight_bytes,
                       f.paused_since != kNever ? ", paused" : "", f.expected_psn, f.delivered_bytes);
  }
  return out;
}

void Simulation::write_flows_csv(std::ostream& out) const {
  out << "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,slowdown,ooo_packets,path_changes,flowcuts,drains,drain_ns\n";
  for (const Flow& f : flows_.flows()) {
    if (f.done()) {
      const Ps fct = f.finish - f.start;
      out << fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.6f},{},{},{},{},{:.3f}\n", f.id, f.src, f.dst, f.size_bytes,
                         ps_to_ns(f.start), ps_to_ns(f.finish), ps_to_ns(fct),
                         static_cast<double>(fct) / static_cast<double>(ideal_fct(f)), f.ooo_packets, f.path_changes,
                         f.flowcuts, f.drains, ps_to_ns(f.drain_ps));
    } else {
      out << fmt::format("{},{},{},{},{:.3f},,,,{},{},{},{},{:.3f}\n", f.id, f.src, f.dst, f.size_bytes, ps_to_ns(f.start),
                         f.ooo_packets, f.path_changes, f.flowcuts, f.drains, ps_to_ns(f.drain_ps));
    }
  }
}

void Simulation::write_ports_csv(std::ostream& out) const {
  out << "switch,port,peer,rate_gbps,utilization,max_queue_bytes\n";
  const Topology& t = topology_;
  for (std::uint32_t sw = 0; sw < switches_.size(); ++sw) {
    const std::uint32_t node = t.switch_node[sw];
    for (std::uint16_t p = 0; p < ports_[node].size(); ++p) {
      const PortRef& r = ports_[node][p];
      const Link& l = *links_[2 * r.link + (r.forward ? 0 : 1)];
      const std::uint32_t peer = r.forward ? t.links[r.link].b : t.links[r.link].a;
      const double u = end_time_ ? static_cast<double>(l.busy_time()) / static_cast<double>(end_time_) : 0.0;
      out << fmt::format("{},{},{}{},{},{:.6f},{}\n", sw, p, t.is_switch(peer) ? "sw" : "host",
                         t.is_switch(peer) ? t.switch_index[peer] : t.host_index[peer], l.rate_gbps(), u,
                         switches_[sw]->max_backlog(p));
    }
  }
}

void Simulation::write_outputs(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create directory: {}", dir, ec.message()));
  auto open = [&](const std::string& name) {
    std::ofstream f(std::filesystem::path(dir) / name);
    if (!f) throw InputError(fmt::format("--out {}: cannot write {}", dir, name));
    return f;
  };
  {
    auto f = open("summary.json");
    f << summary().dump(2) << "\n";
  }
  {
    auto f = open("flows.csv");
    write_flows_csv(f);
  }
  {
    auto f = open("ports.csv");
    write_ports_csv(f);
  }
  {
    auto f = open("tables.json");
    f << tables().dump(2) << "\n";
  }
}

}  // namespace netasic
