// Builders of the switch configuration and its egress flow control (switch.*, routing.*, letflow.*;
// tb/config/builders.h).
#include <fmt/format.h>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tlm/common/error.h"
#ifdef NETASIC_HAVE_COSIM
#include "tlm/cosim/flowlet_table_rtl.h"
#include "tlm/cosim/flowsail_rtl.h"
#endif

namespace netasic {

namespace {

void check_power_of_two(const Scenario& s, const char* key) {
  const auto v = s.integer(key);
  if (v & (v - 1)) throw InputError(fmt::format("{} = {}: must be a power of two", key, v));
}

// switch.flowlet_table.impl: the LetFlow table from the C++ model (empty factory) or the Verilated RTL.
FlowletTableFactory build_flowlet_table_factory(const Scenario& s) {
  const auto impl = s.choice<BlockImpl>("switch.flowlet_table.impl");
  if (impl == BlockImpl::model) return {};
#ifdef NETASIC_HAVE_COSIM
  return impl == BlockImpl::rtl ? make_rtl_flowlet_table : make_rtl_sc_flowlet_table;
#else
  throw InputError("switch.flowlet_table.impl = " + s.string("switch.flowlet_table.impl") +
                   ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

// switch.flowsail.impl: FlowSail's blocks from the C++ model (empty factory) or the Verilated RTL. Built with
// the switch's egress flow control, during elaboration (as rtl_sc requires).
FlowsailFactory build_flowsail_factory(const Scenario& s, FcMode mode) {
  const auto impl = s.choice<BlockImpl>("switch.flowsail.impl");
  if (impl == BlockImpl::model) return {};
  // A block implementation chosen for a block the run does not have would be ignored without a word.
  if (mode != FcMode::flowsail)
    throw InputError(fmt::format("switch.flowsail.impl = {} ({}) has no block to replace: FlowSail's identifier/"
                                 "mapper exists only with switch.flow_control = flowsail, not {} ({})",
                                 s.string("switch.flowsail.impl"), s.origin("switch.flowsail.impl"),
                                 s.string("switch.flow_control"), s.origin("switch.flow_control")));
#ifdef NETASIC_HAVE_COSIM
  return impl == BlockImpl::rtl ? make_rtl_flowsail : make_rtl_sc_flowsail;
#else
  throw InputError("switch.flowsail.impl = " + s.string("switch.flowsail.impl") +
                   ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

// What the egress flow control needs of the other keys (docs/flowsail.md); the key ranges already bound
// each value on its own.
void check_egress_fc(const Scenario& s, const EgressFcConfig& fc, std::uint32_t max_packet) {
  if (fc.mode == FcMode::none) return;
  // Pausing a hop is pointless (and the shared buffer unbounded) where the links drop.
  if (s.choice<LinkFlowControl>("link.flow_control") != LinkFlowControl::lossless)
    throw InputError(fmt::format("switch.flow_control = {} needs link.flow_control = lossless",
                                 s.string("switch.flow_control")));
  if (fc.buffer_bytes < max_packet)
    throw InputError(fmt::format("switch.fc.buffer_bytes = {} cannot hold one packet of {} bytes", fc.buffer_bytes,
                                 max_packet));
  if (fc.mode != FcMode::ideal) {
    if (fc.queues % fc.groups != 0)
      throw InputError(fmt::format("switch.fc.queues = {} does not divide into switch.fc.groups = {} equal groups",
                                   fc.queues, fc.groups));
    if (fc.mode == FcMode::flowsail && fc.queues / fc.groups < 2)
      throw InputError(fmt::format("switch.flow_control = flowsail needs at least 2 queues per group (a normal queue "
                                   "and rsvQ); switch.fc.queues = {} in switch.fc.groups = {}",
                                   fc.queues, fc.groups));
  }
  EgressFc::check_thresholds(fc);
}

}  // namespace

TimeWindow build_stats_window(const Scenario& s) {
  const double start = s.number("stats.window_start_us"), end = s.number("stats.window_end_us");
  if (end > 0 && end <= start)
    throw InputError(fmt::format("stats.window_end_us ({}) must be after stats.window_start_us ({}), or 0 for the "
                                 "run's end", end, start));
  TimeWindow w;
  w.from = static_cast<Ps>(start * kPsPerUs + 0.5);
  if (end > 0) w.to = static_cast<Ps>(end * kPsPerUs + 0.5);
  return w;
}

EgressFcConfig build_egress_fc_config(const Scenario& s, std::uint32_t max_packet) {
  EgressFcConfig fc_config;
  fc_config.stats_window = build_stats_window(s);
  fc_config.mode = s.choice<FcMode>("switch.flow_control");
  fc_config.queues = static_cast<unsigned>(s.integer("switch.fc.queues"));
  fc_config.groups = static_cast<unsigned>(s.integer("switch.fc.groups"));
  fc_config.drr = s.choice<FcScheduler>("switch.fc.scheduler") == FcScheduler::drr;
  fc_config.quantum_bytes = max_packet;
  fc_config.buffer_bytes = static_cast<std::uint64_t>(s.integer("switch.fc.buffer_bytes"));
  fc_config.q_low_bytes = static_cast<std::uint32_t>(s.integer("switch.fc.q_low_bytes"));
  fc_config.q_high_bytes = static_cast<std::uint32_t>(s.integer("switch.fc.q_high_bytes"));
  fc_config.cft_release_hrtt = s.number("switch.fc.cft_release_hrtt");
  fc_config.nft_entries = static_cast<std::uint32_t>(s.integer("switch.fc.nft_entries"));
  fc_config.cft_entries = static_cast<std::uint32_t>(s.integer("switch.fc.cft_entries"));
  fc_config.pfc_xoff_bytes = static_cast<std::uint32_t>(s.integer("switch.pfc.xoff_bytes"));
  fc_config.pfc_xon_bytes = static_cast<std::uint32_t>(s.integer("switch.pfc.xon_bytes"));
  check_power_of_two(s, "switch.fc.nft_entries");
  check_power_of_two(s, "switch.fc.cft_entries");
  check_egress_fc(s, fc_config, max_packet);
  fc_config.flowsail_factory = build_flowsail_factory(s, fc_config.mode);
  return fc_config;
}

SwitchConfig build_switch_config(const Scenario& s, RoutingPolicy policy, std::uint8_t vcs,
                                 const BufferConfig& buffers, const FlowcutParams* flowcut) {
  // A block implementation chosen for a block the run does not have would be ignored without a word.
  if (policy != RoutingPolicy::letflow && s.choice<BlockImpl>("switch.flowlet_table.impl") != BlockImpl::model)
    throw InputError(fmt::format("switch.flowlet_table.impl = {} ({}) has no table to replace: the flowlet table "
                                 "exists only with routing.policy = letflow, not {} ({})",
                                 s.string("switch.flowlet_table.impl"), s.origin("switch.flowlet_table.impl"),
                                 s.string("routing.policy"), s.origin("routing.policy")));
  if (policy != RoutingPolicy::flowcut && s.choice<BlockImpl>("switch.flowcut_table.impl") != BlockImpl::model)
    throw InputError(fmt::format("switch.flowcut_table.impl = {} ({}) has no table to replace: the Flowcut table "
                                 "exists only with routing.policy = flowcut, not {} ({})",
                                 s.string("switch.flowcut_table.impl"), s.origin("switch.flowcut_table.impl"),
                                 s.string("routing.policy"), s.origin("routing.policy")));
  if (policy != RoutingPolicy::flowcut && s.choice<BlockImpl>("switch.fgfc_generator.impl") != BlockImpl::model)
    throw InputError(fmt::format("switch.fgfc_generator.impl = {} ({}) has no generator to replace: the FGFC frame "
                                 "generator exists only with routing.policy = flowcut, not {} ({})",
                                 s.string("switch.fgfc_generator.impl"), s.origin("switch.fgfc_generator.impl"),
                                 s.string("routing.policy"), s.origin("routing.policy")));
  SwitchConfig sc;
  sc.ports_per_tile = static_cast<std::uint16_t>(s.integer("switch.ports_per_tile"));
  sc.tile_columns = static_cast<std::uint16_t>(s.integer("switch.tile_columns"));
  sc.clock_ghz = s.number("switch.clock_ghz");
  sc.tiled_crossbar = s.choice<Crossbar>("switch.crossbar") == Crossbar::tiled;
  sc.arbiter_pointer_per_vc = s.choice<ArbiterPointer>("switch.arbiter_pointer") == ArbiterPointer::per_vc;
  sc.latency_ps = ns_to_ps(s.number("switch.latency_ns"));
  sc.ingress_ps = ns_to_ps(s.number("switch.ingress_latency_ns"));
  if (sc.ingress_ps >= sc.latency_ps)
    throw InputError(fmt::format("switch.ingress_latency_ns ({} ns) must be below switch.latency_ns ({} ns)",
                                 ps_to_ns(sc.ingress_ps), ps_to_ns(sc.latency_ps)));
  sc.egress_queues = static_cast<std::uint32_t>(s.integer("switch.egress_queues"));
  sc.egress_queue_bytes = buffers.egress_queue_bytes;
  sc.egress_queue_packets = static_cast<std::uint32_t>(s.integer("switch.egress_queue_packets"));
  sc.policy = policy;
  sc.vcs = vcs;
  sc.lossless = s.choice<LinkFlowControl>("link.flow_control") == LinkFlowControl::lossless;
  sc.ugal_bias_bytes = s.number("routing.ugal_bias_bytes");
  sc.max_packet_bytes = buffers.max_packet_bytes;
  sc.fc = build_egress_fc_config(s, buffers.max_packet_bytes);
  sc.ecn_threshold_bytes = static_cast<std::uint64_t>(s.integer("switch.ecn_threshold_bytes"));
  // Flowcut state in the switch: every switch (full_switch) or the host-facing one (ingress_only).
  if (policy == RoutingPolicy::flowcut && flowcut->variant != FlowcutVariant::nic_only) sc.flowcut = flowcut;
  if (policy == RoutingPolicy::letflow) {
    check_power_of_two(s, "letflow.entries");
    sc.letflow_table.entries = static_cast<std::uint32_t>(s.integer("letflow.entries"));
    sc.letflow_table.key_bits = 104;
    sc.letflow_delta_ps = static_cast<Ps>(s.number("letflow.timeout_us") * kPsPerUs);
    sc.letflow_factory = build_flowlet_table_factory(s);
  }
  return sc;
}

SwitchConfig for_switch(const Scenario& s, SwitchConfig config, std::uint16_t radix, double fastest_port_gbps,
                        std::vector<std::uint32_t> credits) {
  config.radix = radix;
  config.internal_gbps = s.number("switch.internal_speedup") * fastest_port_gbps;
  config.vc_buffer_bytes = std::move(credits);
  return config;
}

}  // namespace netasic
