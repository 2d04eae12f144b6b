// The switch's prefetch hooks (EventTarget::prefetch, LinkSender::prefetch_credit): the event queue calls
// them a few events ahead, so that the lines an arrival, a transmission or a grant touches first are in
// cache when the event runs. They only read; results never depend on them.
#include "tlm/model/switch.h"

namespace netasic {

inline int Switch::hashed_output(const Packet* p, const RoutingTable::HostAt& at, bool plain_routes) const {
  if (!plain_routes || (p->type == PacketType::data && !hash_routes_)) return -1;
  std::uint32_t n = 0;
  const std::uint16_t* c = RoutingTable::next_hop_list(route_ports_, route_row_[at.col], n);
  return n == 0 ? -1 : RoutingContext::hash_pick(c, n, p, hash_salt_);
}

inline void Switch::prefetch_output_lines(std::uint16_t o, const Packet* p) const {
  __builtin_prefetch(&out_ports_[o]);
  __builtin_prefetch(reinterpret_cast<const char*>(&out_ports_[o]) + 64);
  __builtin_prefetch(&port_links_[o]);
  __builtin_prefetch(&egress_[std::size_t{o} * egress_queues_ + egress_queue_of(p)]);
}

inline int Switch::prefetch_arrival_step0(const Packet* p, const RoutingTable::HostAt& at, bool plain_routes) const {
  const std::uint16_t i = p->in_port;
  if (const Link* in = port_links_[i].in) in->prefetch_return_slot();
  if (at.sw != id_) return hashed_output(p, at, plain_routes);
  __builtin_prefetch(&voqs_[voq_index(i, at.port, p->vc)]);
  return -1;
}

// With two steps (the default) arrivals are handled here; with three (Fabric::set_prefetch_steps(3)) in
// prefetch_arrival_deep. A transmit-done is the same at steps 1 and 0 either way; step 2 comes only with three.
void Switch::prefetch(std::uint32_t kind, std::uint64_t data, unsigned step) const {
  const bool plain_routes = plain_routes_;
  if (kind == kArrive) {
    // Most grants happen at an arrival: the packet joins its VOQ and the arbiter takes it at once. So
    // besides the route, bring in what that grant touches: the output port, the VOQ, the egress queue,
    // the output link's credit state, and the input's state and link (the credit goes back at grant).
    const Packet* p = reinterpret_cast<const Packet*>(data);
    const RoutingTable::HostAt& at = host_at_[p->dst_host];
    if (deep_prefetch_) {
      prefetch_arrival_deep(p, at, plain_routes, step);
      return;
    }
    const std::uint16_t i = p->in_port;
    const bool local = at.sw == id_;
    if (step == 1) {
      // Both lines of the input port: the arrival adds to the fill (first) and checks it against the peak and
      // the buffer size (second).
      __builtin_prefetch(&in_ports_[i]);
      __builtin_prefetch(reinterpret_cast<const char*>(&in_ports_[i]) + 64);
      if (const Link* in = port_links_[i].in) in->prefetch_hot();
      if (local) prefetch_output(at.port, p);
      else if (plain_routes) __builtin_prefetch(&route_row_[at.col]);
      return;
    }
    // Step 0: as with three steps, and for a remote host the lines of the port the hash picks, with its VOQ.
    const int o = prefetch_arrival_step0(p, at, plain_routes);
    if (o < 0) return;
    prefetch_output(static_cast<std::uint16_t>(o), p);
    __builtin_prefetch(&voqs_[voq_index(i, static_cast<std::uint16_t>(o), p->type == PacketType::data ? 1 : 0)]);
  } else if (kind == kTxDone) {
    const auto o = static_cast<std::uint16_t>(data);
    const std::size_t base = std::size_t{o} * egress_queues_;
    if (step == 2) {
      // Only prefetches: what step 1 reads, the port's two lines (prefetch_grant), its link entry and the
      // counts of the control and first data queues.
      __builtin_prefetch(&port_links_[o]);
      __builtin_prefetch(&egress_[base]);
      __builtin_prefetch(&egress_[base + 1]);
      prefetch_grant(o, 2);
      return;
    }
    if (step == 1) {
      // The port, what the receiver behind its link reads when the transmission reaches it (its address
      // from a small per-switch array that stays in cache), and the first entries of the control and first
      // data queues (their heads read from the switch's egress-queue array, small enough to stay in cache).
      __builtin_prefetch(&out_ports_[o]);
      if (const void* rx = port_links_[o].out_rx) __builtin_prefetch(rx);
      if (egress_[base].count) __builtin_prefetch(&egress_front(base));
      if (egress_[base + 1].count) __builtin_prefetch(&egress_front(base + 1));
      prefetch_grant(o, 1);
      return;
    }
    // Step 0: the output link's state, and the packets at the heads of those two queues (one of them is
    // sent now).
    const OutPort& op = out_ports_[o];
    if (op.link) op.link->prefetch_state();
    if (egress_[base].count) __builtin_prefetch(egress_front(base).packet);
    if (egress_[base + 1].count) __builtin_prefetch(egress_front(base + 1).packet);
    prefetch_grant(o, 0);
  }
}

// Three steps: the lines the two-step hooks bring in, one event earlier, so that no step waits on a line it
// asked for itself (docs/performance.md, "A third hook step on the largest fabrics").
void Switch::prefetch_arrival_deep(const Packet* p, const RoutingTable::HostAt& at, bool plain_routes,
                                   unsigned step) const {
  const std::uint16_t i = p->in_port;
  const bool local = at.sw == id_;
  if (step == 2) {
    // Only prefetches: the input port's two lines, the per-port link entries step 1 reads, and for a local
    // host the output's lines, else the route entry.
    __builtin_prefetch(&in_ports_[i]);
    __builtin_prefetch(reinterpret_cast<const char*>(&in_ports_[i]) + 64);
    __builtin_prefetch(&port_links_[i]);
    if (local) prefetch_output_lines(at.port, p);
    else if (plain_routes) __builtin_prefetch(&route_row_[at.col]);
    return;
  }
  if (step == 1) {
    // The link entries and the route entry are in: the input link's hot line, the output link's state, and
    // for a remote host the lines of the port the hash picks with its VOQ.
    if (const Link* in = port_links_[i].in) in->prefetch_hot();
    if (local) {
      if (const Link* out = port_links_[at.port].out) out->prefetch_state();
      return;
    }
    const int o = hashed_output(p, at, plain_routes);
    if (o < 0) return;
    prefetch_output_lines(static_cast<std::uint16_t>(o), p);
    __builtin_prefetch(&voqs_[voq_index(i, static_cast<std::uint16_t>(o), p->type == PacketType::data ? 1 : 0)]);
    return;
  }
  // Step 0: and for a remote host the picked output link's first line (read).
  const int o = prefetch_arrival_step0(p, at, plain_routes);
  if (o < 0) return;
  if (const Link* out = port_links_[static_cast<std::uint16_t>(o)].out) out->load_state();
}

inline bool Switch::grant_pick(std::uint16_t o, std::uint8_t& vc_out, std::uint16_t& i_out) const {
  const OutPort& op = out_ports_[o];
  if (!op.requesting) return false;
  const std::uint8_t vcs = vcs_;
  for (int k = 0; k < vcs; ++k) {
    const auto vc = static_cast<std::uint8_t>(k == 0 ? 0 : vcs - k);
    const std::uint64_t mask = op.request[vc];
    if (!mask) continue;
    const unsigned start = op.rr_input[rr_slot_[vc]];
    const std::uint64_t hi = start >= 64 ? 0 : mask & (~std::uint64_t{0} << start);
    auto i = static_cast<std::uint16_t>(__builtin_ctzll(hi ? hi : mask));
    if (wide_) {  // above 64 ports: the first requesting input of the first group (a hint, not the arbiter's)
      const unsigned g = static_cast<unsigned>(__builtin_ctzll(mask));
      const std::uint64_t w = wide_request_[(std::size_t{o} * vcs_ + vc) * kWideWords + g];
      i = static_cast<std::uint16_t>(g * 64 + static_cast<unsigned>(__builtin_ctzll(w)));
    }
    vc_out = vc;
    i_out = i;
    return true;
  }
  return false;
}

void Switch::prefetch_grant(std::uint16_t o, unsigned step) const {
  const std::uint8_t data_vc = static_cast<std::uint8_t>(vcs_ - 1);
  if (deep_prefetch_) {
    // Three steps: the port's lines (step 2), then the VOQ entry, input port and link entry of the input the
    // round-robin comes to (step 1), then that VOQ's head packet (read) and the input link (step 0).
    if (step == 2) {
      __builtin_prefetch(&out_ports_[o]);
      __builtin_prefetch(reinterpret_cast<const char*>(&out_ports_[o]) + 64);  // the request masks
      return;
    }
    std::uint8_t vc = 0;
    std::uint16_t i = 0;
    if (!grant_pick(o, vc, i)) return;
    if (step == 1) {
      __builtin_prefetch(&voqs_[voq_index(i, o, vc)]);
      __builtin_prefetch(&in_ports_[i]);
      __builtin_prefetch(&port_links_[i]);
      return;
    }
    if (const VoqEntry* head = voqs_[voq_index(i, o, vc)].head) read_line(head);
    if (const Link* in = port_links_[i].in) in->prefetch_hot();
    return;
  }
  if (step == 1) {
    __builtin_prefetch(reinterpret_cast<const char*>(&out_ports_[o]) + 64);  // the request masks
    // The VOQs of the highest data VC (the arbiter's first data VC), when they fit in four lines.
    if (radix_ * sizeof(Voq) <= 256) {
      const char* v = reinterpret_cast<const char*>(&voqs_[voq_index(0, o, data_vc)]);
      for (std::size_t b = 0; b < radix_ * sizeof(Voq); b += 64) __builtin_prefetch(v + b);
    }
    return;
  }
  // Step 0: the input the round-robin comes to, on the first VC with requests in the arbiter's order.
  std::uint8_t vc = 0;
  std::uint16_t i = 0;
  if (!grant_pick(o, vc, i)) return;
  if (vc == data_vc) {
    // Read, not prefetched (read_line): about 2% faster at 8,192 hosts (docs/performance.md, "Reads instead of
    // prefetches").
    if (const VoqEntry* head = voqs_[voq_index(i, o, vc)].head) read_line(head);
  } else {
    __builtin_prefetch(&voqs_[voq_index(i, o, vc)]);
  }
  __builtin_prefetch(&in_ports_[i]);
  if (const Link* in = port_links_[i].in) in->prefetch_hot();
}

void Switch::prefetch_output(std::uint16_t o, const Packet* p) const {
  prefetch_output_lines(o, p);
  if (const Link* out = port_links_[o].out) out->load_state();
}

}  // namespace netasic
