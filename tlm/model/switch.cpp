#include "tlm/model/switch.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

namespace {
enum SwitchEvent : std::uint32_t { kArrive = 1, kTxDone = 2 };

inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
}  // namespace

Switch::Switch(const sc_core::sc_module_name& name, Fabric& fabric, const SwitchConfig& config,
               const RoutingTable& routing, std::uint32_t id, std::uint64_t seed)
    : sc_core::sc_module(name),
      fabric_(fabric),
      config_(config),
      routing_(routing),
      id_(id),
      rng_(seed, 0x5357000000000000ULL + id),
      hash_salt_(mix32(id * 0x9e3779b9U + 0x85ebca6bU)) {
  const auto radix = config_.radix;
  if (radix < 1 || radix > 64)
    throw InputError(fmt::format("switch {}: radix {} outside 1..64 (a 64-bit request mask per output)", id, radix));
  if (config_.egress_queues < 2 || config_.egress_queues > 128)
    throw InputError(fmt::format("switch.egress_queues = {}: accepted 2..128", config_.egress_queues));
  if (config_.vcs < 2 || config_.vc_buffer_bytes.size() != config_.vcs)
    throw InputError(fmt::format("switch {}: needs at least one control and one data virtual channel", id));
  if (!(config_.clock_ghz > 0)) throw InputError("switch.clock_ghz must be > 0");
  clock_ps_ = static_cast<Ps>(std::llround(1000.0 / config_.clock_ghz));
  if (clock_ps_ == 0) clock_ps_ = 1;
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
  data_queues_ = config_.egress_queues - 1;
  out_ports_.resize(radix);
  in_ports_.resize(radix);
  for (std::uint16_t p = 0; p < radix; ++p) in_ports_[p].row = (p / config_.ports_per_tile) / config_.tile_columns;
  payload_ = std::make_unique<tlm::tlm_generic_payload[]>(radix);
  voqs_.resize(std::size_t{radix} * radix * config_.vcs);
  request_mask_.assign(std::size_t{radix} * config_.vcs, 0);
  const std::size_t slots = config_.egress_queue_packets;
  egress_.reserve(std::size_t{radix} * config_.egress_queues);
  for (std::size_t k = 0; k < std::size_t{radix} * config_.egress_queues; ++k) egress_.emplace_back(slots);
  egress_bytes_.assign(std::size_t{radix} * config_.egress_queues, 0);
  in_fill_.assign(std::size_t{radix} * config_.vcs, 0);
  max_in_fill_.assign(std::size_t{radix} * config_.vcs, 0);
  const std::uint32_t rows = (radix + config_.ports_per_tile * config_.tile_columns - 1) /
                             (config_.ports_per_tile * config_.tile_columns);
  column_busy_.assign(std::size_t{rows} * radix, 0);
}

void Switch::attach(std::uint16_t port, Link* in_link, Link* out_link) {
  in_ports_[port].link = in_link;
  out_ports_[port].link = out_link;
  if (out_link) out_link->set_sender(this, port);
}

void Switch::receive(std::uint16_t i, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  Packet* p = packet_of(payload);
  p->in_port = i;
  p->in_vc = p->vc;
  const std::size_t k = std::size_t{i} * config_.vcs + p->vc;
  in_fill_[k] += p->size_bytes;
  if (in_fill_[k] > max_in_fill_[k]) max_in_fill_[k] = in_fill_[k];
  if (config_.lossless && in_fill_[k] > config_.vc_buffer_bytes[p->vc])
    throw ModelError(fmt::format("{}: input buffer of port {} VC {} overflows ({} > {} bytes)", name(), i, p->vc,
                                 in_fill_[k], config_.vc_buffer_bytes[p->vc]));
  const Ps head = fabric_.now() + delay.value();
  p->t_tail = head + p->ser_ps;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  fabric_.schedule(on_clock(head + config_.ingress_ps), this, kArrive, reinterpret_cast<std::uint64_t>(p));
}

void Switch::on_event(std::uint32_t kind, std::uint64_t data) {
  if (kind == kArrive) {
    arrive(reinterpret_cast<Packet*>(data));
  } else if (kind == kTxDone) {
    const auto o = static_cast<std::uint16_t>(data);
    out_ports_[o].tx_pending = false;
    try_transmit(o);
  }
}

void Switch::on_credit(std::uint16_t port) {
  try_grant(port);
  try_transmit(port);
}

void Switch::arrive(Packet* p) {
  const std::uint16_t o = route(p);
  p->out_port = o;
  if (!config_.lossless) {
    // Drop-tail: the output's queue for this class (VOQ share plus egress) is full.
    const std::uint32_t q = egress_queue_of(p);
    std::uint64_t queued = egress_bytes_[std::size_t{o} * config_.egress_queues + q];
    for (std::uint16_t i = 0; i < config_.radix; ++i)
      for (Packet* x = voq(i, o, p->vc).head; x; x = x->next) queued += x->size_bytes;
    if (queued + p->size_bytes > config_.egress_queue_bytes) {
      ++counters_.packets_dropped;
      in_fill_[std::size_t{p->in_port} * config_.vcs + p->in_vc] -= p->size_bytes;
      in_ports_[p->in_port].link->return_credits(p->in_vc, p->size_bytes);
      fabric_.pool().put(p);
      return;
    }
  }
  Fifo& f = voq(p->in_port, o, p->vc);
  const bool was_empty = f.head == nullptr;
  f.push(p);
  if (was_empty) request_mask_[std::size_t{o} * config_.vcs + p->vc] |= std::uint64_t{1} << p->in_port;
  OutPort& op = out_ports_[o];
  op.backlog += p->size_bytes;
  if (op.backlog > op.max_backlog) op.max_backlog = op.backlog;
  try_grant(o);
  try_transmit(o);
}

std::uint16_t Switch::least_loaded(const std::uint16_t* ports, std::uint32_t n) {
  // Ties are broken at random so equal ports share load evenly; the stream is per switch (deterministic).
  std::uint16_t best = ports[0];
  std::uint64_t best_load = load(best);
  std::uint32_t ties = 1;
  for (std::uint32_t k = 1; k < n; ++k) {
    const std::uint64_t l = load(ports[k]);
    if (l < best_load) {
      best = ports[k];
      best_load = l;
      ties = 1;
    } else if (l == best_load && rng_.below(++ties) == 0) {
      best = ports[k];
    }
  }
  return best;
}

std::uint16_t Switch::pick(const std::uint16_t* ports, std::uint32_t n, const Packet* p) {
  if (n == 1) return ports[0];
  if (p->type != PacketType::data) return ports[mix32(p->flow_hash ^ hash_salt_) % n];
  switch (config_.policy) {
    case RoutingPolicy::spray: return ports[rng_.below(n)];
    case RoutingPolicy::adaptive: return least_loaded(ports, n);
    default: return ports[mix32(p->flow_hash ^ hash_salt_) % n];
  }
}

std::uint16_t Switch::route(Packet* p) {
  const std::uint32_t dst_switch = routing_.host_switch(p->dst_host);
  std::uint16_t o;
  std::uint32_t n = 0;
  if (dst_switch == id_) {
    o = routing_.host_port(p->dst_host);
  } else if (!routing_.has_groups() || p->type != PacketType::data) {
    const std::uint16_t* c = routing_.next_hops(id_, dst_switch, n);
    o = pick(c, n, p);
  } else {
    // Dragonfly. Decide Valiant/UGAL at the first switch (the packet came from its host).
    const std::uint32_t my_group = routing_.group_of(id_);
    const std::uint32_t dst_group = routing_.group_of(dst_switch);
    const bool at_source = p->global_hops == 0 && routing_.peer(id_, p->in_port) == RoutingTable::kHost;
    if (at_source && my_group != dst_group && routing_.groups() > 2 &&
        (config_.policy == RoutingPolicy::valiant || config_.policy == RoutingPolicy::ugal)) {
      std::uint32_t g = static_cast<std::uint32_t>(rng_.below(routing_.groups() - 2));
      for (std::uint32_t skip : {std::min(my_group, dst_group), std::max(my_group, dst_group)})
        if (g >= skip) ++g;
      bool go_valiant = config_.policy == RoutingPolicy::valiant;
      if (!go_valiant) {
        std::uint32_t nm = 0, nv = 0;
        const std::uint16_t* cm = routing_.next_hops(id_, dst_switch, nm);
        const std::uint16_t* cv = routing_.next_hops_to_group(id_, g, nv);
        const std::uint16_t pm = least_loaded(cm, nm);
        const std::uint16_t pv = least_loaded(cv, nv);
        const double hm = routing_.distance(id_, dst_switch);
        // Non-minimal hop count: reach group g, then at most local + global + local to the destination.
        const double hv = routing_.distance_to_group(id_, g) + 3.0;
        go_valiant = static_cast<double>(load(pm)) * hm > static_cast<double>(load(pv)) * hv + config_.ugal_bias_bytes;
      }
      if (go_valiant) p->via_group = g;
    }
    if (p->via_group != kNoSwitch && my_group == p->via_group) p->via_group = kNoSwitch;
    const std::uint16_t* c = p->via_group != kNoSwitch ? routing_.next_hops_to_group(id_, p->via_group, n)
                                                        : routing_.next_hops(id_, dst_switch, n);
    o = config_.policy == RoutingPolicy::ugal ? least_loaded(c, n) : c[mix32(p->flow_hash ^ hash_salt_) % n];
  }
  if (p->type == PacketType::data) {
    p->vc = static_cast<std::uint8_t>(1 + std::min<int>(p->global_hops, config_.vcs - 2));
    if (routing_.is_global_port(id_, o)) ++p->global_hops;
  } else {
    p->vc = 0;
  }
  return o;
}

void Switch::try_grant(std::uint16_t o) {
  OutPort& op = out_ports_[o];
  Link* link = op.link;
  if (!link) return;
  const std::uint8_t vcs = config_.vcs;
  const std::uint32_t nq = config_.egress_queues;
  const std::size_t base = std::size_t{o} * nq;
  for (;;) {
    bool granted = false;
    // A data grant reserves a maximum-size slot in its egress queue, whatever the packet's size; so with
    // no such slot in any data queue, data VOQs need not be looked at, and a congested output's
    // arbitration stays O(1) instead of a scan of every waiting input. Worked out only when a data VOQ
    // is waiting.
    int data_room = -1;
    // Control VC first, then data VCs from the last stage down (packets nearest their destination first).
    for (int step = 0; step < vcs && !granted; ++step) {
      const auto vc = static_cast<std::uint8_t>(step == 0 ? 0 : vcs - step);
      std::uint64_t mask = request_mask_[std::size_t{o} * vcs + vc];
      if (!mask) continue;
      if (vc != 0) {
        if (data_room < 0) {
          data_room = 0;
          for (std::uint32_t q = 1; q < nq && !data_room; ++q) data_room = data_slot_free(base + q);
        }
        if (!data_room) continue;
      }
      if (!link->has_credit(vc, kMinPacketBytes)) continue;
      // Round-robin: inputs at or after the last granted one first.
      const unsigned start = op.rr_input;
      const std::uint64_t hi = start >= 64 ? 0 : mask & (~std::uint64_t{0} << start);
      for (int pass = 0; pass < 2 && !granted; ++pass) {
        std::uint64_t m = pass == 0 ? hi : mask & ~hi;
        while (m) {
          const auto i = static_cast<std::uint16_t>(__builtin_ctzll(m));
          m &= m - 1;
          Fifo& f = voq(i, o, vc);
          Packet* p = f.head;
          const std::size_t eq = base + egress_queue_of(p);
          if (vc == 0 ? egress_bytes_[eq] + p->size_bytes > config_.egress_queue_bytes || egress_[eq].full()
                      : !data_slot_free(eq))
            continue;
          if (!link->has_credit(vc, p->size_bytes)) break;
          f.pop();
          if (!f.head) request_mask_[std::size_t{o} * vcs + vc] &= ~(std::uint64_t{1} << i);
          op.rr_input = static_cast<std::uint16_t>(i + 1);
          link->take_credits(vc, p->size_bytes);
          // The packet leaves the input buffer: its credit goes back upstream.
          in_fill_[std::size_t{i} * vcs + p->in_vc] -= p->size_bytes;
          InPort& ip = in_ports_[i];
          if (ip.link) ip.link->return_credits(p->in_vc, p->size_bytes);
          // Row bus of the input and the column channel from the input's row to the output.
          const Ps now = fabric_.now();
          const std::size_t col = std::size_t{ip.row} * config_.radix + o;
          const Ps xfer_start = std::max({now, ip.row_busy, column_busy_[col]});
          const Ps xfer = static_cast<Ps>(p->size_bytes * internal_ps_per_byte_ + 0.5);
          ip.row_busy = column_busy_[col] = xfer_start + xfer;
          p->t_ready = on_clock(xfer_start + xbar_ps_);
          egress_[eq].push_back(p);
          egress_bytes_[eq] += p->size_bytes;
          ++op.egress_packets;
          granted = true;
          break;
        }
      }
    }
    if (!granted) return;
  }
}

void Switch::try_transmit(std::uint16_t o) {
  OutPort& op = out_ports_[o];
  if (op.egress_packets == 0) return;
  const Ps now = fabric_.now();
  if (op.tx_free_at > now) {
    if (!op.tx_pending) {
      op.tx_pending = true;
      fabric_.schedule(op.tx_free_at, this, kTxDone, o);
    }
    return;
  }
  const std::size_t base = std::size_t{o} * config_.egress_queues;
  std::uint32_t q = 0;
  if (egress_[base].empty()) {
    // Data queues round-robin, starting after the last one served.
    std::uint32_t c = op.rr_queue;
    for (std::uint32_t k = 0; k < data_queues_; ++k) {
      c = c >= data_queues_ ? 1 : c + 1;
      if (!egress_[base + c].empty()) {
        q = c;
        break;
      }
    }
    op.rr_queue = static_cast<std::uint16_t>(q);
  }
  Packet* p = egress_[base + q].front();
  egress_[base + q].pop_front();
  egress_bytes_[base + q] -= p->size_bytes;
  --op.egress_packets;
  op.backlog -= p->size_bytes;
  Link* link = op.link;
  const Ps ser = link->serialization(p->size_bytes);
  // Cut-through: start once the packet is at the egress, and never so early that the tail would overrun.
  Ps start = std::max({now, p->t_ready, link->free_at()});
  if (p->t_tail > ser && p->t_tail - ser > start) start = p->t_tail - ser;
  op.tx_free_at = start + ser;
  ++counters_.packets_forwarded;
  tlm::tlm_generic_payload& payload = payload_[o];
  attach_packet(payload, p);
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - now);
  (*out[o])->b_transport(payload, delay);
  // Room in the egress queue: more grants may go through; then come back when the link is free.
  try_grant(o);
  if (op.egress_packets && !op.tx_pending) {
    op.tx_pending = true;
    fabric_.schedule(op.tx_free_at, this, kTxDone, o);
  }
}

}  // namespace netasic
