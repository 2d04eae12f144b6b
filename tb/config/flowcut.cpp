// Builder of the Flowcut parameters (flowcut.*, switch.flowcut_table.impl, switch.fgfc_generator.impl;
// tb/config/builders.h).
#include <fmt/format.h>

#include <algorithm>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tlm/common/error.h"
#include "tlm/model/packet.h"
#ifdef NETASIC_HAVE_COSIM
#include "tlm/cosim/flowcut_table_rtl.h"
#include "tlm/cosim/flowcut_table_rtl_sc.h"
#include "tlm/cosim/fgfc_generator_rtl.h"
#endif

namespace netasic {

namespace {

// The table's geometry and timing (flowcut.table.*).
FlowcutTableConfig build_flowcut_table(const Scenario& s, FlowcutVariant variant) {
  FlowcutTableConfig table;
  table.entries = static_cast<std::uint32_t>(s.integer("flowcut.table.entries"));
  table.organization = s.choice<FlowcutOrganization>("flowcut.table.organization");
  table.ways = static_cast<unsigned>(s.integer("flowcut.table.ways"));
  // Cycles per operation, as the RTL implementations answer (docs/blocks/flowcut_table.md): the register
  // CAM in 2, the hashed table on RAM in 3 (hash, read, compare).
  table.latency = FlowcutLatency::uniform(table.organization == FlowcutOrganization::fully_associative ? 2 : 3);
  table.variant = variant;
  table.key_bits = 104;
  table.port_bits = 8;
  // Reject impossible tables now, naming the keys (the block model checks the same).
  if (table.organization == FlowcutOrganization::set_associative) {
    const auto sets = table.entries / table.ways;
    if (table.entries % table.ways || (sets & (sets - 1)))
      throw InputError(fmt::format("flowcut.table.entries / flowcut.table.ways = {} / {} must be a power of two "
                                   "(the number of sets)",
                                   table.entries, table.ways));
  }
  return table;
}

// The tables are built by the switch and NIC constructors, i.e. during SystemC elaboration, as the
// SystemC-output adapter (rtl_sc) requires; the factory says which implementation they build.
FlowcutTableFactory build_flowcut_table_factory(const Scenario& s) {
  const auto impl = s.choice<BlockImpl>("switch.flowcut_table.impl");
  if (impl == BlockImpl::model) return {};
#ifdef NETASIC_HAVE_COSIM
  return impl == BlockImpl::rtl ? make_rtl_flowcut_table : make_rtl_sc_flowcut_table;
#else
  throw InputError("switch.flowcut_table.impl = " + s.string("switch.flowcut_table.impl") +
                   ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

// switch.fgfc_generator.impl: the switches' FGFC frame generator from the C++ model (empty factory) or the
// Verilated RTL. Built with the switch's Flowcut engine, during elaboration (as rtl_sc requires).
FgfcGeneratorFactory build_fgfc_generator_factory(const Scenario& s, FlowcutVariant variant) {
  const auto impl = s.choice<BlockImpl>("switch.fgfc_generator.impl");
  if (impl == BlockImpl::model) return {};
  // A block implementation chosen for a block the run does not have would be ignored without a word.
  if (variant == FlowcutVariant::nic_only)
    throw InputError(fmt::format("switch.fgfc_generator.impl = {} ({}) has no generator to replace: the switches "
                                 "send FGFC frames only with flowcut.variant = full_switch or ingress_only, not "
                                 "nic_only ({})",
                                 s.string("switch.fgfc_generator.impl"), s.origin("switch.fgfc_generator.impl"),
                                 s.origin("flowcut.variant")));
#ifdef NETASIC_HAVE_COSIM
  return impl == BlockImpl::rtl ? make_rtl_fgfc_generator : make_rtl_sc_fgfc_generator;
#else
  throw InputError("switch.fgfc_generator.impl = " + s.string("switch.fgfc_generator.impl") +
                   ": this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

// Full-switch ACKs retrace the data path recorded in the packet: at most Packet::kMaxPath switches.
void check_full_switch_paths(const Topology& t, const RoutingTable& routing) {
  std::uint32_t diameter = 0;
  for (std::uint32_t a = 0; a < t.switches(); ++a)
    for (std::uint32_t b = 0; b < t.switches(); ++b) diameter = std::max<std::uint32_t>(diameter, routing.distance(a, b));
  if (diameter + 3 > static_cast<std::uint32_t>(Packet::kMaxPath))
    throw InputError(fmt::format("flowcut.variant = full_switch: paths of up to {} switches exceed the {} a "
                                 "Flowcut ACK can retrace; use ingress_only or nic_only",
                                 diameter + 3, Packet::kMaxPath));
}

}  // namespace

FlowcutParams build_flowcut_params(const Scenario& s, const Topology& t, const RoutingTable& routing) {
  FlowcutParams p;
  p.variant = s.choice<FlowcutVariant>("flowcut.variant");
  p.table = build_flowcut_table(s, p.variant);
  p.overflow = s.choice<FlowcutOverflow>("flowcut.overflow");
  p.shadow_counters = static_cast<std::uint32_t>(s.integer("flowcut.shadow_counters"));
  p.alpha = s.number("flowcut.alpha");
  p.rtt_ratio_threshold = s.number("flowcut.rtt_ratio_threshold");
  p.rtt_diff_threshold = s.number("flowcut.rtt_diff_threshold");
  p.ack_bytes = static_cast<std::uint32_t>(s.integer("flowcut.ack_bytes"));
  p.timestamp_bytes = static_cast<std::uint32_t>(s.integer("flowcut.timestamp_bytes"));
  p.max_payload_bytes = static_cast<std::uint32_t>(s.integer("nic.mtu_bytes"));  // early resume's unit
  p.data_header_bytes = static_cast<std::uint32_t>(s.integer("nic.header_bytes"));
  p.pause_period_ps = static_cast<Ps>(s.number("flowcut.pause_period_us") * kPsPerUs);
  p.after_source_timeout = s.choice<FlowcutSourceTimeout>("flowcut.after_source_timeout");
  p.nic_new_path = s.choice<FlowcutNicNewPath>("flowcut.nic_new_path");
  p.xoff_credit_bytes = static_cast<std::uint32_t>(s.integer("flowcut.xoff_credit_bytes"));
  p.xoff_with_credit = p.xoff_credit_bytes > 0;
  p.min_packets_left = static_cast<std::uint32_t>(s.integer("flowcut.min_packets_left"));
  p.early_resume_packets = static_cast<std::uint32_t>(s.integer("flowcut.early_resume_packets"));
  p.nic_cache_entries = static_cast<std::uint32_t>(s.integer("flowcut.nic_cache_entries"));
  p.fgfc_gap_cycles = static_cast<std::uint32_t>(s.integer("flowcut.fgfc_gap_cycles"));
  p.ack_loss = s.number("failures.flowcut_ack_loss");
  p.table_factory = build_flowcut_table_factory(s);
  p.fgfc_factory = build_fgfc_generator_factory(s, p.variant);
  if (p.variant == FlowcutVariant::full_switch) check_full_switch_paths(t, routing);
  return p;
}

}  // namespace netasic
