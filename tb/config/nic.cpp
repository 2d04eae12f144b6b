// Builder of the NIC configuration: transport, congestion control and the reorder buffer (nic.*;
// tb/config/builders.h).
#include <fmt/format.h>

#include <algorithm>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tlm/common/error.h"
#ifdef NETASIC_HAVE_COSIM
#include "tlm/cosim/reorder_buffer_rtl.h"
#endif

namespace netasic {

namespace {

// nic.reorder_buffer.impl: the rearrange buffer from the C++ model (empty factory) or the Verilated RTL.
ReorderBufferFactory build_reorder_buffer_factory(const Scenario& s) {
  const auto impl = s.choice<BlockImpl>("nic.reorder_buffer.impl");
  if (impl == BlockImpl::model) return {};
#ifdef NETASIC_HAVE_COSIM
  return impl == BlockImpl::rtl ? make_rtl_reorder_buffer : make_rtl_sc_reorder_buffer;
#else
  throw InputError("nic.reorder_buffer.impl = " + s.string("nic.reorder_buffer.impl") +
                   ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

// The rearrange-buffer engine (nic.transport reorder; Martinez et al., IPDPS 2005): memory in cells of
// nic.reorder.unit_bytes, per connection or pooled, and the source's injection control.
void build_reorder(const Scenario& s, NicConfig& nic) {
  const auto unit = static_cast<std::uint32_t>(s.integer("nic.reorder.unit_bytes"));
  const auto buffer = static_cast<std::uint64_t>(s.integer("nic.reorder.buffer_bytes"));
  const auto pool = static_cast<std::uint64_t>(s.integer("nic.reorder.pool_bytes"));
  ReorderBufferConfig& rb = nic.reorder_buffer;
  rb.seq_bits = 32;
  rb.max_packet_units = (nic.mtu_bytes + nic.header_bytes + unit - 1) / unit;
  rb.buffer_units = static_cast<std::uint32_t>(buffer / unit);
  if (rb.buffer_units < rb.max_packet_units)
    throw InputError(fmt::format("nic.reorder.buffer_bytes = {} holds {} cells of nic.reorder.unit_bytes = {}; one "
                                 "packet of {} bytes needs {}",
                                 buffer, rb.buffer_units, unit, nic.mtu_bytes + nic.header_bytes, rb.max_packet_units));
  if (rb.buffer_units > (1u << 20))
    throw InputError(fmt::format("nic.reorder.buffer_bytes / nic.reorder.unit_bytes = {} cells: at most 2^20", rb.buffer_units));
  rb.memory = s.choice<ReorderMemory>("nic.reorder.memory");
  nic.pair_connections = s.choice<ReorderConnection>("nic.reorder.connection") == ReorderConnection::pair;
  rb.pool_units = pool / unit;
  if (rb.memory == ReorderMemory::dynamic_pool && rb.pool_units < rb.max_packet_units)
    throw InputError(fmt::format("nic.reorder.pool_bytes = {} cannot hold one packet", pool));
  nic.injection = s.choice<NicConfig::Injection>("nic.reorder.injection");
  if (nic.injection == NicConfig::Injection::adap_lw && rb.memory != ReorderMemory::static_partition)
    throw InputError("nic.reorder.injection = adap_lw needs nic.reorder.memory = static (the window is the "
                     "destination's partition)");
  nic.reorder_unit_bytes = unit;
  nic.reorder_factory = build_reorder_buffer_factory(s);
}

// DCQCN: the reaction point starts at the rate of the hosts' links (all equal: a flow's first rate is its
// NIC's line rate).
void build_dcqcn(const Scenario& s, const Topology& t, NicConfig& nic) {
  DcqcnConfig& c = nic.dcqcn_config;
  double line = 0;
  for (const auto& l : t.links) {
    if (t.is_switch(l.a) && t.is_switch(l.b)) continue;
    const double rate = l.rate_gbps * l.scale;
    if (line != 0 && rate != line)
      throw InputError(fmt::format("nic.cc = dcqcn: host links at {} and {} Gb/s; the line rate must be one for every "
                                   "host link", line, rate));
    line = rate;
  }
  c.line_rate_gbps = line > 0 ? line : s.number("link.rate_gbps");
  c.g = s.number("nic.dcqcn.g");
  c.alpha_timer_ps = static_cast<Ps>(s.number("nic.dcqcn.alpha_timer_us") * kPsPerUs);
  c.rate_timer_ps = static_cast<Ps>(s.number("nic.dcqcn.rate_timer_us") * kPsPerUs);
  c.byte_counter_bytes = static_cast<std::uint64_t>(s.integer("nic.dcqcn.byte_counter_bytes"));
  c.fast_recovery_stages = static_cast<std::uint32_t>(s.integer("nic.dcqcn.fast_recovery_stages"));
  c.rai_gbps = s.number("nic.dcqcn.rai_mbps") / 1000;
  c.rhai_gbps = s.number("nic.dcqcn.rhai_mbps") / 1000;
  c.min_rate_gbps = s.number("nic.dcqcn.min_rate_mbps") / 1000;
  if (c.min_rate_gbps > c.line_rate_gbps)
    throw InputError(fmt::format("nic.dcqcn.min_rate_mbps = {} is above the hosts' line rate of {} Gb/s",
                                 s.number("nic.dcqcn.min_rate_mbps"), c.line_rate_gbps));
  nic.cnp_interval_ps = static_cast<Ps>(s.number("nic.dcqcn.cnp_interval_us") * kPsPerUs);
}

// Telemetry routing (routing.telemetry.*): T, the serialization time of one full packet on a host link; the
// candidates, |G| - 1 on a dragonfly (the shortest path and one per intermediate group).
void build_telemetry(const Scenario& s, const Topology& t, NicConfig& nic) {
  TelemetryConfig& c = nic.telemetry_config;
  nic.telemetry = true;
  c.delta1 = s.number("routing.telemetry.delta1");
  c.delta2 = s.number("routing.telemetry.delta2");
  c.delta3 = static_cast<std::uint32_t>(s.integer("routing.telemetry.delta3"));
  c.initial_probes = static_cast<std::uint32_t>(s.integer("routing.telemetry.initial_probes"));
  c.probe_timeout_ps = static_cast<Ps>(s.number("routing.telemetry.probe_timeout_us") * kPsPerUs);
  // The paper waits before the move under go-back-N (a packet overtaken on the new path would be dropped);
  // selective repeat "obviates the need".
  const auto wait = s.choice<AutoOnOff>("routing.telemetry.switch_wait");
  nic.telemetry_switch_wait =
      wait == AutoOnOff::on || (wait == AutoOnOff::automatic && nic.transport == TransportKind::go_back_n);
  std::uint32_t groups = 0;
  for (std::uint32_t g : t.group_of) groups = std::max(groups, g + 1);
  const auto candidates = static_cast<std::uint32_t>(s.integer("routing.telemetry.candidates"));
  c.candidates = candidates ? candidates : (groups > 2 ? groups - 1 : 1);
  double rate = s.number("link.rate_gbps");
  for (const auto& l : t.links)
    if (!(t.is_switch(l.a) && t.is_switch(l.b))) rate = l.rate_gbps * l.scale;
  const double bytes = static_cast<double>(nic.mtu_bytes + nic.header_bytes + s.integer("link.overhead_bytes"));
  c.mtu_time_ps = static_cast<Ps>(bytes * 8000.0 / rate);
}

// TCP (nic.transport tcp, tlm/blocks/tcp_reno.h): its own retransmission timer replaces the NIC's, always
// armed (a flow recovers from a loss on any fabric), and the receive window is nic.window_bytes.
void build_tcp(const Scenario& s, NicConfig& nic) {
  TcpConfig& c = nic.tcp_config;
  c.mss = nic.mtu_bytes;
  c.initial_window = static_cast<std::uint64_t>(s.integer("nic.tcp.initial_window_bytes"));
  c.max_window = nic.window_bytes;
  c.dupthresh = static_cast<std::uint32_t>(s.integer("nic.tcp.dupthresh"));
  c.min_rto = static_cast<Ps>(s.number("nic.tcp.min_rto_us") * kPsPerUs);
  c.max_rto = std::max(c.max_rto, c.min_rto);
  c.ack_every = static_cast<std::uint32_t>(s.integer("nic.tcp.ack_every"));
  c.delayed_ack = static_cast<Ps>(s.number("nic.tcp.delayed_ack_us") * kPsPerUs);
  c.tso_bytes = static_cast<std::uint64_t>(s.integer("nic.tcp.tso_bytes"));
  c.sack = s.boolean("nic.tcp.sack");
  c.sack_blocks = static_cast<std::uint32_t>(s.integer("nic.tcp.sack_blocks"));
  nic.rto_ps = 0;
  if (nic.cc == CongestionControlKind::dcqcn)
    throw InputError("nic.transport = tcp takes nic.cc = none (loss only) or dctcp (loss and ECN), not dcqcn: a "
                     "rate-based controller would pace what the TCP window clocks");
}

}  // namespace

NicConfig build_nic_config(const Scenario& s, const Topology& t, const FlowcutParams* flowcut) {
  NicConfig nic_config;
  nic_config.mtu_bytes = static_cast<std::uint32_t>(s.integer("nic.mtu_bytes"));
  nic_config.header_bytes = static_cast<std::uint32_t>(s.integer("nic.header_bytes"));
  nic_config.ack_bytes = static_cast<std::uint32_t>(s.integer("nic.ack_bytes"));
  nic_config.window_bytes = static_cast<std::uint64_t>(s.integer("nic.window_bytes"));
  nic_config.latency_ps = ns_to_ps(s.number("nic.latency_ns"));
  // The retransmission timer is armed only where packets can be lost.
  bool can_lose = s.choice<LinkFlowControl>("link.flow_control") == LinkFlowControl::lossy;
  for (const auto& l : t.links) can_lose = can_lose || l.error_rate > 0;
  nic_config.rto_ps = can_lose ? static_cast<Ps>(s.number("nic.rto_us") * kPsPerUs) : 0;
  nic_config.flowcut = flowcut;
  nic_config.transport = s.choice<TransportKind>("nic.transport");
  nic_config.sr_dupthresh = static_cast<std::uint32_t>(s.integer("nic.sr.dupthresh"));
  nic_config.sr_sack_blocks = static_cast<std::uint32_t>(s.integer("nic.sr.sack_blocks"));
  nic_config.ack_every = static_cast<std::uint32_t>(s.integer("nic.ack_every"));
  nic_config.ack_delay_ps = static_cast<Ps>(s.number("nic.ack_delay_us") * kPsPerUs);
  if (nic_config.ack_every > 1 && nic_config.transport != TransportKind::go_back_n &&
      nic_config.transport != TransportKind::selective_repeat)
    throw InputError(fmt::format("nic.ack_every = {} ({}) coalesces ACKs of nic.transport gbn or sr, not {} ({}){}",
                                 nic_config.ack_every, s.origin("nic.ack_every"), s.string("nic.transport"),
                                 s.origin("nic.transport"),
                                 nic_config.transport == TransportKind::tcp ? ": tcp has nic.tcp.ack_every" : ""));
  nic_config.cc = s.choice<CongestionControlKind>("nic.cc");
  nic_config.dctcp_config.g = s.number("nic.dctcp.g");
  nic_config.dctcp_config.mss = nic_config.mtu_bytes;
  nic_config.dctcp_config.initial_window = static_cast<std::uint64_t>(s.integer("nic.dctcp.initial_window_bytes"));
  nic_config.dctcp_config.max_window = nic_config.window_bytes;
  nic_config.dctcp_config.slow_start = s.choice<Switched>("nic.dctcp.slow_start") == Switched::on;
  if (nic_config.cc == CongestionControlKind::dcqcn) build_dcqcn(s, t, nic_config);
  if (s.choice<RoutingPolicy>("routing.policy") == RoutingPolicy::telemetry) build_telemetry(s, t, nic_config);
  if (nic_config.transport == TransportKind::reorder) build_reorder(s, nic_config);
  else if (s.choice<BlockImpl>("nic.reorder_buffer.impl") != BlockImpl::model)
    throw InputError(fmt::format("nic.reorder_buffer.impl = {} ({}) has no buffer to replace: the rearrange "
                                 "buffer exists only with nic.transport = reorder, not {} ({})",
                                 s.string("nic.reorder_buffer.impl"), s.origin("nic.reorder_buffer.impl"),
                                 s.string("nic.transport"), s.origin("nic.transport")));
  if (nic_config.transport == TransportKind::tcp) build_tcp(s, nic_config);
  return nic_config;
}

NicHostConfig build_nic_host_config(const Scenario& s, const NicConfig& nic) {
  if (nic.transport == TransportKind::reorder)
    throw InputError(fmt::format("nic.host_interface = true ({}) does not work with nic.transport = reorder ({}): "
                                 "the rearrange buffers are sized for the flows known before the run",
                                 s.origin("nic.host_interface"), s.origin("nic.transport")));
  NicHostConfig c;
  c.mtu_bytes = nic.mtu_bytes;
  c.mmio_ps = ns_to_ps(s.number("nic.host.mmio_ns"));
  c.max_message_bytes = static_cast<std::uint64_t>(s.integer("nic.host.max_message_bytes"));
  return c;
}

}  // namespace netasic
