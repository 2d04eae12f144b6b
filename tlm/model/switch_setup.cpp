// A switch's elaboration: its configuration checked, ports, buffers and queues laid out, routing built and
// links attached. The packet path is in switch.cpp, the arbiter above 64 ports in switch_wide.cpp.
#include "tlm/model/switch.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {

const FlowcutCounters Switch::kNoFlowcut{};

Switch::Switch(const sc_core::sc_module_name& name, Fabric& fabric, const SwitchConfig& config,
               const RoutingTable& routing, std::uint32_t id, std::uint64_t seed)
    : SwitchHotState(fabric, routing, id),
      sc_core::sc_module(name),
      config_(config),
      rng_(seed, 0x5357000000000000ULL + id) {
  hash_salt_ = mix32(id * 0x9e3779b9U + 0x85ebca6bU) ^ seed_salt(seed);
  const auto radix = config_.radix;
  if (radix < 1 || radix > kMaxSwitchRadix)
    throw InputError(fmt::format("switch {}: radix {} outside 1..{}", id, radix, kMaxSwitchRadix));
  if (config_.egress_queues < 2 || config_.egress_queues > 128)
    throw InputError(fmt::format("switch.egress_queues = {}: accepted 2..128", config_.egress_queues));
  if (config_.vcs < 2 || config_.vc_buffer_bytes.size() != config_.vcs)
    throw InputError(fmt::format("switch {}: needs at least one control and one data virtual channel", id));
  if (config_.vcs > kMaxVcs)
    throw InputError(fmt::format("switch {}: {} virtual channels, at most {}", id, config_.vcs, kMaxVcs));
  if (!(config_.clock_ghz > 0)) throw InputError("switch.clock_ghz must be > 0");
  copy_hot_config();
  if (config_.ingress_ps >= config_.latency_ps)
    throw InputError(fmt::format("switch.ingress_latency_ns ({} ns) must be below switch.latency_ns ({} ns)",
                                 ps_to_ns(config_.ingress_ps), ps_to_ns(config_.latency_ps)));
  xbar_ps_ = config_.latency_ps - config_.ingress_ps;
  if (!(config_.internal_gbps > 0)) throw InputError(fmt::format("switch {}: internal bandwidth must be > 0", id));
  internal_ps_per_byte_ = 8000.0 / config_.internal_gbps;

  in.reserve(radix);
  out.reserve(radix);
  for (std::uint16_t p = 0; p < radix; ++p) {
    fw_.emplace_back(std::make_unique<PortTarget<Switch>>(this, p));
    in.emplace_back(std::make_unique<TargetSocket>(fmt::format("in_{}", p).c_str()));
    in.back()->bind(*fw_.back());
    out.emplace_back(std::make_unique<InitiatorSocket>(fmt::format("out_{}", p).c_str()));
    out.back()->bind(bw_);
  }
  lay_out_ports();
  build_routing();
  if (config_.fc.mode != FcMode::none) {
    if (!config_.lossless)
      throw InputError(fmt::format("switch.flow_control {} needs a lossless fabric (link.flow_control = lossless)",
                                   to_string(config_.fc.mode)));
    if (config_.fc.buffer_bytes < config_.max_packet_bytes)
      throw InputError(fmt::format("switch.fc.buffer_bytes = {} cannot hold one packet of {} bytes",
                                   config_.fc.buffer_bytes, config_.max_packet_bytes));
    EgressFcConfig fc = config_.fc;
    fc.owner = this->name();
    efc_ = make_egress_fc(fc, radix, fabric_.pool(), rng_);
    if (local_control_.empty()) {
      local_control_.reserve(radix);
      for (std::uint16_t p = 0; p < radix; ++p) local_control_.emplace_back(config_.control_queue_packets);
    }
  }
  // Sized once (Flowcut in build_routing, egress flow control above): the packet path reaches it from the hot lines.
  local_queues_ = local_control_.empty() ? nullptr : local_control_.data();
}

void Switch::copy_hot_config() {
  radix_ = config_.radix;
  vcs_ = config_.vcs;
  egress_queues_ = config_.egress_queues;
  egress_queue_packets_ = config_.egress_queue_packets;
  egress_queue_bytes_ = config_.egress_queue_bytes;
  max_packet_bytes_ = config_.max_packet_bytes;
  lossless_ = config_.lossless;
  tiled_crossbar_ = config_.tiled_crossbar;
  ingress_ps_ = config_.ingress_ps;
  clock_ps_ = static_cast<Ps>(std::llround(1000.0 / config_.clock_ghz));
  if (clock_ps_ == 0) clock_ps_ = 1;
  data_queues_ = config_.egress_queues - 1;
  if (config_.arbiter_pointer_per_vc)
    for (std::uint8_t v = 0; v < kMaxVcs; ++v) rr_slot_[v] = v;
  ecn_threshold_ = config_.ecn_threshold_bytes;
}

void Switch::lay_out_ports() {
  const std::uint16_t radix = config_.radix;
  out_ports_.reset(new OutPort[radix]());
  in_ports_.reset(new InPort[radix]());
  port_links_.reset(new PortLinks[radix]());
  for (std::uint16_t p = 0; p < radix; ++p) {
    in_ports_[p].row = (p / config_.ports_per_tile) / config_.tile_columns;
    for (std::uint8_t v = 0; v < config_.vcs; ++v) in_ports_[p].buffer[v] = config_.vc_buffer_bytes[v];
  }
  voqs_.reset(new Voq[std::size_t{radix} * radix * config_.vcs]());
  voq_blocks_.grow(radix);
  wide_ = radix > 64;
  if (wide_) wide_request_.assign(std::size_t{radix} * config_.vcs * kWideWords, 0);
  const std::uint32_t first = std::min(kEgressRingStart, config_.egress_queue_packets);
  const std::size_t queues = std::size_t{radix} * config_.egress_queues;
  egress_.reset(new EgressQueue[queues]());
  egress_slots_.reset(new EgressEntry[queues * first]);
  for (std::size_t eq = 0; eq < queues; ++eq) {
    egress_[eq].slots = &egress_slots_[eq * first];
    egress_[eq].cap = first;
  }
  for (std::uint16_t o = 0; o < radix; ++o)
    for (std::uint32_t q = 1; q < config_.egress_queues; ++q)
      set_bit(out_ports_[o].data_slot_free, q, data_slot_free(std::size_t{o} * config_.egress_queues + q));
  const std::uint32_t rows = (radix + config_.ports_per_tile * config_.tile_columns - 1) /
                             (config_.ports_per_tile * config_.tile_columns);
  column_busy_.reset(new Ps[std::size_t{rows} * radix]());
  if (config_.lossless == false) queued_bytes_.assign(std::size_t{radix} * config_.egress_queues, 0);
}

void Switch::grow_egress(EgressQueue& e) {
  // Rare: a queue grows only until its ring holds the most packets it ever held at once.
  if (e.cap == egress_queue_packets_)
    throw std::logic_error(fmt::format("{}: a push onto a full egress queue (the grant checks its room)", name()));
  const std::uint32_t cap = grown_ring_size(e.cap, egress_queue_packets_);
  std::unique_ptr<EgressEntry[]> ring = regrow_ring(e.slots, e.head, e.count, e.cap, cap);
  e.slots = ring.get();
  e.head = 0;
  e.cap = cap;
  if (e.grown == kNotGrown) {
    e.grown = static_cast<std::uint32_t>(egress_grown_.size());
    egress_grown_.push_back(std::move(ring));
  } else {
    egress_grown_[e.grown] = std::move(ring);  // frees the ring it grew out of
  }
}

void Switch::build_routing() {
  // What the policy and the Flowcut engine may read of this switch (routing_policy.h).
  ctx_.routing = &routing_;
  ctx_.rng = &rng_;
  ctx_.fabric = &fabric_;
  ctx_.backlog_base = reinterpret_cast<const char*>(&out_ports_[0].backlog);
  ctx_.backlog_stride = sizeof(OutPort);
  ctx_.switch_id = id_;
  ctx_.hash_salt = hash_salt_;
  if (config_.flowcut) {
    FlowcutOwner& owner = *this;
    flowcut_ = std::make_unique<FlowcutEngine>(*config_.flowcut, FlowcutSite::switch_asic, this->name(), owner,
                                               fabric_, &ctx_, clock_ps_);
    local_control_.reserve(config_.radix);
    for (std::uint16_t p = 0; p < config_.radix; ++p) local_control_.emplace_back(config_.control_queue_packets);
  }
  RoutingPolicySettings settings;
  settings.ugal_bias_bytes = config_.ugal_bias_bytes;
  settings.letflow_table = config_.letflow_table;
  settings.letflow_delta_ps = config_.letflow_delta_ps;
  settings.letflow_factory = config_.letflow_factory;
  settings.owner = this->name();
  settings.flowcut = flowcut_.get();
  policy_ = make_routing_function(config_.policy, ctx_, settings);
  telemetry_ = config_.policy == RoutingPolicy::telemetry;
  hash_routes_ = policy_->hash_only();
  plain_topology_ = !routing_.has_groups() && !routing_.up_down();
  plain_routes_ = plain_topology_ && !flowcut_;
}

void Switch::attach(std::uint16_t port, Link* in_link, Link* out_link) {
  in_ports_[port].link = in_link;
  out_ports_[port].link = out_link;
  port_links_[port].in = in_link;
  port_links_[port].out = out_link;
  if (out_link) out_link->set_sender(this, port);
  if (efc_ && out_link) {
    // One hop-BDP: the port's rate times the hop RTT, taken as the propagation both ways, the switch's
    // pipeline latency and one maximum-size packet (the time before a PAUSE can stop the neighbour).
    const Ps hrtt = 2 * out_link->prop_ps() + config_.latency_ps + out_link->serialization(config_.max_packet_bytes);
    efc_->set_port_hop(port, hrtt, static_cast<std::uint64_t>(out_link->rate_gbps() * static_cast<double>(hrtt) / 8000.0));
  }
}

void Switch::start_of_simulation() {
  deep_prefetch_ = fabric_.prefetch_steps() == 3;
  // Every link has resolved its receiver (Link::end_of_elaboration runs before this).
  for (std::uint16_t o = 0; o < config_.radix; ++o) {
    if (!out_ports_[o].link) continue;
    out_ports_[o].fw = out[o]->operator->();
    port_links_[o].out_rx = out_ports_[o].link->receiver_hint();
  }
}

}  // namespace netasic
