// Builders of the buffers, the links and the fabric's event horizon (tb/config/builders.h).
#include <fmt/format.h>

#include <algorithm>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tlm/common/error.h"

namespace netasic {

std::vector<std::uint32_t> BufferConfig::credits(bool switch_receiver, std::uint8_t vcs) const {
  std::vector<std::uint32_t> c(vcs, input_bytes);
  if (switch_receiver) c[0] = control_bytes;
  else std::fill(c.begin(), c.end(), rx_bytes);
  return c;
}

BufferConfig build_buffer_config(const Scenario& s, const NicConfig& nic) {
  BufferConfig b;
  b.max_packet_bytes = nic.mtu_bytes + nic.header_bytes;
  b.input_bytes = static_cast<std::uint32_t>(s.integer("switch.input_buffer_bytes"));
  b.control_bytes = static_cast<std::uint32_t>(s.integer("switch.control_buffer_bytes"));
  b.rx_bytes = static_cast<std::uint32_t>(s.integer("nic.rx_buffer_bytes"));
  b.egress_queue_bytes = static_cast<std::uint32_t>(s.integer("switch.egress_queue_bytes"));
  if (b.input_bytes < b.max_packet_bytes)
    throw InputError(fmt::format("switch.input_buffer_bytes = {} cannot hold one packet of nic.mtu_bytes + "
                                 "nic.header_bytes = {} bytes",
                                 b.input_bytes, b.max_packet_bytes));
  if (b.egress_queue_bytes < b.max_packet_bytes)
    throw InputError(fmt::format("switch.egress_queue_bytes = {} cannot hold one packet of {} bytes",
                                 b.egress_queue_bytes, b.max_packet_bytes));
  if (b.rx_bytes < b.max_packet_bytes)
    throw InputError(fmt::format("nic.rx_buffer_bytes = {} cannot hold one packet of {} bytes", b.rx_bytes,
                                 b.max_packet_bytes));
  const std::uint32_t max_ack =
      nic.ack_bytes + (nic.transport == TransportKind::selective_repeat ? 8 * nic.sr_sack_blocks : 0) +  // SACK ranges
      (nic.transport == TransportKind::tcp && nic.tcp_config.sack ? 2 + 8 * nic.tcp_config.sack_blocks : 0);
  if (b.control_bytes < max_ack)
    throw InputError(fmt::format("switch.control_buffer_bytes = {} cannot hold one ACK of {} bytes (nic.ack_bytes "
                                 "plus the SACK ranges)",
                                 b.control_bytes, max_ack));
  return b;
}

LinkConfig build_link_config(const Scenario& s, const TopoLink& l, std::vector<std::uint32_t> credits) {
  LinkConfig lc;
  lc.rate_gbps = l.rate_gbps;
  lc.rate_scale = l.scale;
  lc.prop_ps = ns_to_ps(l.delay_ns);
  lc.overhead_bytes = static_cast<std::uint32_t>(s.integer("link.overhead_bytes"));
  lc.lossless = s.choice<LinkFlowControl>("link.flow_control") == LinkFlowControl::lossless;
  lc.error_rate = l.error_rate;
  lc.vc_credit_bytes = std::move(credits);
  return lc;
}

constexpr double kMinLinkRateGbps = 1e-9;

Ps event_horizon_ps(const Scenario& s, const Topology& t, const NicConfig& nic, std::uint32_t max_packet) {
  // The longest hop (propagation and two serializations of a full packet on the slowest link, the
  // cut-through bound), the switch pipeline and the NIC's receive latency, with a margin.
  double longest_hop_ns = 0;
  for (const TopoLink& l : t.links) {
    // The keys' ranges keep a generated link at 1 b/s or more, but slowing and degrading multiply: far
    // below that a packet's serialization time leaves the 64-bit picosecond clock and the link would act
    // as infinitely fast.
    if (!(l.rate_gbps * l.scale >= kMinLinkRateGbps))
      throw InputError(fmt::format("the link between nodes {} and {} runs at {:.3g} Gb/s, below the model's minimum of 1 "
                                   "b/s (1e-9 Gb/s): its rate (link.rate_gbps or the topology file) times "
                                   "topology.leaf_spine.slow_links and failures.degraded_factor",
                                   l.a, l.b, l.rate_gbps * l.scale));
    const double ser_ns = (max_packet + s.integer("link.overhead_bytes")) * 8.0 / (l.rate_gbps * l.scale);
    longest_hop_ns = std::max(longest_hop_ns, l.delay_ns + 2 * ser_ns);
  }
  const double horizon_ns = 1.25 * (longest_hop_ns + s.number("switch.latency_ns") + ps_to_ns(nic.latency_ps));
  return ns_to_ps(horizon_ns);
}

}  // namespace netasic
