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

  in.reserve(radix);
  out.reserve(radix);
  for (std::uint16_t p = 0; p < radix; ++p) {
    in.emplace_back(std::make_unique<InSocket>(fmt::format("in_{}", p).c_str()));
    in.back()->register_b_transport(this, &Switch::b_transport, p);
    out.emplace_back(std::make_unique<OutSocket>(fmt::format("out_{}", p).c_str()));
  }
  in_link_.assign(radix, nullptr);
  out_link_.assign(radix, nullptr);
  payload_ = std::make_unique<tlm::tlm_generic_payload[]>(radix);
  voqs_.resize(std::size_t{radix} * radix * config_.vcs);
  request_mask_.assign(std::size_t{radix} * config_.vcs, 0);
  rr_input_.assign(radix, 0);
  rr_queue_.assign(radix, 0);
  // Queue entries: enough for the byte capacity filled with minimum-size (64 B) packets.
  const std::size_t slots = config_.egress_queue_bytes / 64 + 2;
  egress_.reserve(std::size_t{radix} * config_.egress_queues);
  for (std::size_t k = 0; k < std::size_t{radix} * config_.egress_queues; ++k) egress_.emplace_back(slots);
  egress_bytes_.assign(std::size_t{radix} * config_.egress_queues, 0);
  backlog_.assign(radix, 0);
  max_backlog_.assign(radix, 0);
  in_fill_.assign(std::size_t{radix} * config_.vcs, 0);
  max_in_fill_.assign(std::size_t{radix} * config_.vcs, 0);
  row_busy_.assign(radix, 0);
  column_busy_.assign(std::size_t{radix} * radix, 0);
  tx_free_at_.assign(radix, 0);
  tx_pending_.assign(radix, 0);
  row_of_port_.resize(radix);
  for (std::uint16_t p = 0; p < radix; ++p)
    row_of_port_[p] = (p / config_.ports_per_tile) / config_.tile_columns;
}

void Switch::attach(std::uint16_t port, Link* in_link, Link* out_link) {
  in_link_[port] = in_link;
  out_link_[port] = out_link;
  if (out_link) out_link->set_sender(this, port);
}

void Switch::b_transport(int port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  Packet* p = packet_of(payload);
  const auto i = static_cast<std::uint16_t>(port);
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
    tx_pending_[o] = 0;
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
      fabric_.pool().put(p);
      return;
    }
  }
  Fifo& f = voq(p->in_port, o, p->vc);
  const bool was_empty = f.head == nullptr;
  f.push(p);
  if (was_empty) request_mask_[std::size_t{o} * config_.vcs + p->vc] |= std::uint64_t{1} << p->in_port;
  backlog_[o] += p->size_bytes;
  if (backlog_[o] > max_backlog_[o]) max_backlog_[o] = backlog_[o];
  try_grant(o);
  try_transmit(o);
}

std::uint16_t Switch::least_loaded(const std::uint16_t* ports, std::uint32_t n) {
  // Ties are broken at random so equal ports share load evenly; the stream is per switch (deterministic).
  std::uint16_t best = ports[0];
  std::uint64_t best_load = backlog_[best];
  std::uint32_t ties = 1;
  for (std::uint32_t k = 1; k < n; ++k) {
    const std::uint64_t load = backlog_[ports[k]];
    if (load < best_load) {
      best = ports[k];
      best_load = load;
      ties = 1;
    } else if (load == best_load && rng_.below(++ties) == 0) {
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
        go_valiant = static_cast<double>(backlog_[pm]) * hm > static_cast<double>(backlog_[pv]) * hv + config_.ugal_bias_bytes;
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
  Link* link = out_link_[o];
  if (!link) return;
  const std::uint8_t vcs = config_.vcs;
  for (;;) {
    bool granted = false;
    // Control VC first, then data VCs from the last stage down (packets nearest their destination first).
    for (int step = 0; step < vcs && !granted; ++step) {
      const auto vc = static_cast<std::uint8_t>(step == 0 ? 0 : vcs - step);
      std::uint64_t mask = request_mask_[std::size_t{o} * vcs + vc];
      if (!mask) continue;
      // Round-robin: inputs at or after rr_input_[o] first.
      const unsigned start = rr_input_[o];
      const std::uint64_t hi = start >= 64 ? 0 : mask & (~std::uint64_t{0} << start);
      for (int pass = 0; pass < 2 && !granted; ++pass) {
        std::uint64_t m = pass == 0 ? hi : mask & ~hi;
        while (m) {
          const auto i = static_cast<std::uint16_t>(__builtin_ctzll(m));
          m &= m - 1;
          Fifo& f = voq(i, o, vc);
          Packet* p = f.head;
          const std::uint32_t q = egress_queue_of(p);
          const std::size_t eq = std::size_t{o} * config_.egress_queues + q;
          if (egress_bytes_[eq] + p->size_bytes > config_.egress_queue_bytes || egress_[eq].full()) continue;
          if (!link->has_credit(vc, p->size_bytes)) break;  // same VC downstream: no input can go
          f.pop();
          if (!f.head) request_mask_[std::size_t{o} * vcs + vc] &= ~(std::uint64_t{1} << i);
          rr_input_[o] = static_cast<std::uint16_t>(i + 1);
          link->take_credits(vc, p->size_bytes);
          // The packet leaves the input buffer: its credit goes back upstream.
          in_fill_[std::size_t{i} * vcs + p->in_vc] -= p->size_bytes;
          if (in_link_[i]) in_link_[i]->return_credits(p->in_vc, p->size_bytes);
          // Row bus of the input and the column channel from the input's row to the output.
          const Ps now = fabric_.now();
          const std::size_t col = std::size_t{row_of_port_[i]} * config_.radix + o;
          const Ps xfer_start = std::max({now, row_busy_[i], column_busy_[col]});
          const Ps xfer = serialization_ps(p->size_bytes, config_.internal_gbps);
          row_busy_[i] = column_busy_[col] = xfer_start + xfer;
          p->t_ready = on_clock(xfer_start + xbar_ps_);
          egress_[eq].push_back(p);
          egress_bytes_[eq] += p->size_bytes;
          granted = true;
          break;
        }
      }
    }
    if (!granted) return;
  }
}

void Switch::try_transmit(std::uint16_t o) {
  const Ps now = fabric_.now();
  const std::uint32_t nq = config_.egress_queues;
  const std::size_t base = std::size_t{o} * nq;
  if (tx_free_at_[o] > now) {
    if (!tx_pending_[o]) {
      bool waiting = false;
      for (std::uint32_t q = 0; q < nq && !waiting; ++q) waiting = !egress_[base + q].empty();
      if (waiting) {
        tx_pending_[o] = 1;
        fabric_.schedule(tx_free_at_[o], this, kTxDone, o);
      }
    }
    return;
  }
  std::uint32_t q = 0;
  if (egress_[base].empty()) {
    // Data queues round-robin, starting after the last one served.
    std::uint32_t found = 0;
    for (std::uint32_t k = 1; k < nq; ++k) {
      const std::uint32_t c = 1 + (rr_queue_[o] + k - 1) % (nq - 1);
      if (!egress_[base + c].empty()) {
        found = c;
        break;
      }
    }
    if (!found) return;
    q = found;
    rr_queue_[o] = q;
  }
  Packet* p = egress_[base + q].front();
  egress_[base + q].pop_front();
  egress_bytes_[base + q] -= p->size_bytes;
  backlog_[o] -= p->size_bytes;
  Link* link = out_link_[o];
  const Ps ser = link->serialization(p->size_bytes);
  // Cut-through: start once the packet is at the egress, and never so early that the tail would overrun.
  Ps start = std::max({now, p->t_ready, link->free_at()});
  if (p->t_tail > ser && p->t_tail - ser > start) start = p->t_tail - ser;
  tx_free_at_[o] = start + ser;
  ++counters_.packets_forwarded;
  tlm::tlm_generic_payload& payload = payload_[o];
  attach_packet(payload, p);
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - now);
  (*out[o])->b_transport(payload, delay);
  // Room in the egress queue: more grants may go through; then come back when the link is free.
  try_grant(o);
  bool waiting = false;
  for (std::uint32_t k = 0; k < nq && !waiting; ++k) waiting = !egress_[base + k].empty();
  if (waiting && !tx_pending_[o]) {
    tx_pending_[o] = 1;
    fabric_.schedule(tx_free_at_[o], this, kTxDone, o);
  }
}

}  // namespace netasic
