#include "tlm/model/switch.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

void Switch::receive(std::uint16_t i, Packet* p, Ps delay) {
  p->in_port = i;
  p->in_vc = p->vc;
  p->in_size = p->size_bytes;
  Fabric& fabric = fabric_;
  const Ps head = fabric.now() + delay;
  p->t_tail = head + p->ser_ps;
  fabric.schedule(on_clock(head + ingress_ps_), this, kArrive, reinterpret_cast<std::uint64_t>(p));
}

void Switch::on_event(std::uint32_t kind, std::uint64_t data) {
  if (kind == kArrive) {
    arrive(reinterpret_cast<Packet*>(data));
  } else if (kind == kTxDone) {
    const auto o = static_cast<std::uint16_t>(data);
    out_ports_[o].tx_pending = false;
    try_transmit(o);
  } else if (kind == kFgfcPoll) {
    flowcut_->poll_fgfc();
  } else if (kind == kFcKick) {
    const auto o = static_cast<std::uint16_t>(data);
    try_grant(o);
    try_transmit(o);
  }
}

void Switch::on_credit(std::uint16_t port) {
  try_grant(port);
  try_transmit(port);
}

inline void Switch::arrive(Packet* p) {
  // The packet occupies the input buffer from its arrival (not from when the sender put it on the link: a
  // receiver changes nothing before a frame arrives, so one called later, when a window of a run split across
  // processes ends, behaves the same).
  InPort& ip = in_ports_[p->in_port];
  const std::uint64_t fill = ip.fill[p->in_vc] += p->in_size;
  if (fill > ip.max_fill[p->in_vc]) ip.max_fill[p->in_vc] = fill;
  if (lossless_ && fill > ip.buffer[p->in_vc]) input_overflow(p);
  if (efc_) {
    if (p->type == PacketType::pause || p->type == PacketType::resume) return fc_frame_in(p);
    if (p->type == PacketType::data) {
      efc_->on_arrival(p, fc_out_);
      if (!fc_out_.empty()) send_fc_frames();
    }
  }
  if (flowcut_) {
    if (p->type == PacketType::fc_ack && flowcut_ack_in(p)) return;
    if (p->type == PacketType::data) flowcut_->on_data_arrival(p);
  }
  std::uint16_t o;
  if (p->type == PacketType::fc_ack && flowcut_ && flowcut_->retraces()) {
    o = p->path_in[p->ack_pos + 1];  // retrace: out of the port the data came in by
    p->vc = 0;
  } else {
    o = route(p);
  }
  if (o == kHeld) return;  // waits in the input buffer until a Flowcut entry frees (retry_held)
  enqueue_here(p, o);
}

void Switch::input_overflow(const Packet* p) const {
  const InPort& ip = in_ports_[p->in_port];
  throw ModelError(fmt::format("{}: input buffer of port {} VC {} overflows ({} > {} bytes)", name(), p->in_port,
                               p->in_vc, ip.fill[p->in_vc], ip.buffer[p->in_vc]));
}

void Switch::enqueue(Packet* p, std::uint16_t o) { enqueue_here(p, o); }

inline void Switch::enqueue_here(Packet* p, std::uint16_t o) {
  const std::uint32_t eq = egress_queue_of(p);
  if (!lossless_) {
    // Drop-tail: the output's queue for this class (VOQ share plus egress) is full.
    const std::size_t q = std::size_t{o} * egress_queues_ + eq;
    if (queued_bytes_[q] + p->size_bytes > egress_queue_bytes_) {
      ++counters_.packets_dropped;
      release_input(p);
      fabric_.pool().put(p);
      return;
    }
    queued_bytes_[q] += p->size_bytes;
  }
  OutPort& op = out_ports_[o];
  // Nothing else requests the output: the packet is the only head the arbiter could take.
  const bool alone = !op.requesting && !wide_ && !efc_ && op.link && !local_control_waits(o);
  op.backlog += p->size_bytes;
  if (op.backlog > op.max_backlog) op.max_backlog = op.backlog;
  // Granted at once, it never waits in its VOQ (empty, as every VOQ of the output is): the same grant as
  // through the VOQ, without the entry written and read back.
  if (!(alone && grant_alone(o, p, eq))) {
    Voq& v = voq(p->in_port, o, p->vc);
    const bool was_empty = v.head == nullptr;
    voq_blocks_.push(v, p, eq);
    if (was_empty) set_request(op, o, p->vc, p->in_port);
    if (!alone) try_grant(o);
  }
  try_transmit(o);
}

inline std::uint16_t Switch::route(Packet* p) {
  const RoutingTable::HostAt& at = host_at_[p->dst_host];
  const std::uint32_t dst_switch = at.sw;
  if (dst_switch == id_) {
    const std::uint16_t o = at.port;
    assign_vc(p, o);
    return o;
  }
  if (p->via_group != kNoSwitch && routing_.has_groups() && routing_.group_of(id_) == p->via_group)
    p->via_group = kNoSwitch;  // the Valiant detour reached its intermediate group
  std::uint32_t n = 0;
  const std::uint16_t* c = candidates(p, at, n);
  // Data takes its policy's choice (one virtual call); control frames keep the flow's hash path.
  // (Telemetry PTMs follow the path their source port encodes, as data does.)
  const std::uint16_t o = p->type == PacketType::data || p->type == PacketType::ptm ? policy_->choose(p, c, n)
                                                                                    : ctx_.hash_pick(c, n, p);
  if (o == kHeld) return kHeld;  // waits in the input buffer until a Flowcut entry frees
  assign_vc(p, o);
  return o;
}

const std::uint16_t* Switch::candidates(const Packet* p, const RoutingTable::HostAt& at, std::uint32_t& n) const {
  // Minimal next hops; on a dragonfly, toward the target group by the canonical route (its global link,
  // or a local hop to a switch that has one), so a minimal path crosses one global link and a Valiant
  // path two: the VC that counts global hops then keeps the fabric deadlock-free.
  const std::uint16_t* c;
  const std::uint32_t dst_switch = at.sw;
  const bool groups = routing_.has_groups();
  if (plain_topology_) c = RoutingTable::next_hop_list(route_ports_, route_row_[at.col], n);
  else if (groups && p->via_group != kNoSwitch) c = routing_.next_hops_to_group(id_, p->via_group, n);
  else if (groups && routing_.group_of(id_) != routing_.group_of(dst_switch))
    c = routing_.next_hops_to_group(id_, routing_.group_of(dst_switch), n);
  else if (routing_.up_down()) c = routing_.next_hops_updown(id_, dst_switch, p->went_down, n);
  else c = routing_.next_hops(id_, dst_switch, n);
  if (n == 0) throw ModelError(fmt::format("{}: no route toward switch {}", name(), dst_switch));
  return c;
}

void Switch::release_input(const Packet* p) { release_input(p->in_port, p->in_vc, p->in_size); }

// Longer than the usual bound on purpose: the arbiter is the switch's hottest loop (most grants happen at an
// arrival), measured faster as one function whose masks and port state stay in registers than split up.
template <bool Wide>
void Switch::grant_ports(std::uint16_t o) {
  OutPort& op = out_ports_[o];
  Link* link = op.link;
  const std::uint8_t vcs = vcs_;
  const std::uint32_t nq = egress_queues_;
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
      if (vc == 0 && local_control_waits(o)) {
        // Frames this switch generated (Flowcut ACKs, FGFC) go first: they hold no input buffer.
        Packet* c = local_queues_[o].front();
        const std::size_t eq = base;
        if (egress_room(0, eq, c->size_bytes, false) && link->has_credit(0, c->size_bytes)) {
          local_queues_[o].pop_front();
          link->take_credits(0, c->size_bytes);
          c->t_ready = on_clock(fabric_.now() + xbar_ps_);
          c->t_tail = 0;
          egress_push(o, 0, c, c->t_ready, c->size_bytes);
          op.backlog += c->size_bytes;
          op.max_backlog = std::max(op.max_backlog, op.backlog);
          if (!lossless_) queued_bytes_[eq] += c->size_bytes;
          ++op.egress_packets;
          granted = true;
          continue;
        }
      }
      std::uint64_t mask = op.request[vc];
      if (!mask) continue;
      // With hop-by-hop flow control, data waits in the shared buffer and takes its credit at transmission.
      const bool shared = efc_ && vc != 0;
      if (vc != 0) {
        if (data_room < 0)
          data_room = efc_ ? efc_->room(max_packet_bytes_) : any_data_slot_free(op);
        if (!data_room) continue;
      }
      if (!shared && !link->has_credit(vc, kMinPacketBytes)) continue;
      if (Wide) {
        granted = grant_wide(op, o, vc, shared, base) == Try::granted;
        continue;
      }
      // Round-robin: inputs at or after the last one granted on this VC first.
      const unsigned start = op.rr_input[rr_slot_[vc]];
      const std::uint64_t hi = start >= 64 ? 0 : mask & (~std::uint64_t{0} << start);
      bool vc_blocked = false;  // no downstream credit for this VC's head: no input on it can go
      for (int pass = 0; pass < 2 && !granted && !vc_blocked; ++pass) {
        std::uint64_t m = pass == 0 ? hi : mask & ~hi;
        while (m) {
          const auto i = static_cast<std::uint16_t>(__builtin_ctzll(m));
          m &= m - 1;
          // grant_input, written out for up to 64 ports: the measured hot path (30% of run time on the reference) keeps
          // its shape; grant_input serves the wide arbiter.
          Voq& v = voq(i, o, vc);
          const VoqEntry& h = *v.head;
          const std::size_t eq = base + h.queue();
          if (!egress_room(vc, eq, h.size, shared)) continue;
          if (!shared && !link->has_absorbed_credit(vc, h.size)) {
            vc_blocked = true;
            break;
          }
          take_head(op, o, i, vc, v, shared, eq - base);
          granted = true;
          break;
        }
      }
    }
    // Done when nothing was granted, or when nothing requests the output any more (another round would only
    // read: try_grant's test).
    if (!granted || (!op.requesting && !local_control_waits(o))) {
      if (efc_ && !fc_out_.empty()) send_fc_frames();
      return;
    }
  }
}

template void Switch::grant_ports<false>(std::uint16_t o);
template void Switch::grant_ports<true>(std::uint16_t o);

// An arrival at an output nothing else requests (most arrivals: 70% on the 1,024-host bench): the arbiter's
// checks for the one head there is, in its order, without its rounds over VCs and inputs. The same grant,
// the same credit wake-ups, as grant_ports. Only without egress flow control (enqueue's test), so there are
// no frames of EgressFc's to send afterwards, as grant_ports does.
inline bool Switch::grant_alone(std::uint16_t o, Packet* p, std::uint32_t q) {
  OutPort& op = out_ports_[o];
  Link* link = op.link;
  const std::uint8_t vc = p->vc;
  const std::size_t eq = std::size_t{o} * egress_queues_ + q;
  // In grant_ports' order: a data VC needs a free data slot somewhere first, then the VC's credit, the head's
  // egress queue, the head's credit.
  const bool data_room = vc == 0 || any_data_slot_free(op);
  const bool go = data_room && link->has_credit(vc, kMinPacketBytes) && egress_room(vc, eq, p->size_bytes, false) &&
                  link->has_absorbed_credit(vc, p->size_bytes);
  if (go) grant_packet(op, o, p->in_port, vc, p, p->size_bytes, p->in_vc, p->in_size, false, q);
  return go;
}

void Switch::transmit_next(std::uint16_t o) {
  OutPort& op = out_ports_[o];
  const Ps now = fabric_.now();
  const std::size_t base = std::size_t{o} * egress_queues_;
  // A packet counts as eligible once it is through the crossbar (t_ready). Control goes first, then the
  // data queues round-robin, among eligible heads; only when no head is eligible does the link commit
  // to the head that gets through first (so an idle port never waits for one packet while another is
  // ready, and a lone packet costs no extra event).
  std::uint32_t q = kNoQueue, earliest = kNoQueue;
  Ps earliest_ready = kNever;
  auto consider = [&](std::uint32_t c) {
    const Ps ready = egress_front(base + c).ready;
    if (ready <= now) {
      q = c;
      return true;
    }
    if (ready < earliest_ready) {
      earliest_ready = ready;
      earliest = c;
    }
    return false;
  };
  const QueueBits& busy = op.egress_nonempty;
  if (!(busy[0] & 1) || !consider(0)) {
    // Data queues that hold packets, round-robin from the one after the last served.
    const std::uint32_t start = op.rr_queue >= data_queues_ ? 1 : op.rr_queue + 1;
    if (egress_queues_ <= 64) {
      // Every queue's bit in the first word (start < 64): its busy data queues from `start` up, then those
      // below it, lowest bit first.
      const std::uint64_t data = busy[0] & ~std::uint64_t{1};
      bool found = false;
      for (std::uint64_t m = data & (~std::uint64_t{0} << start); m && !found; m &= m - 1)
        found = consider(static_cast<std::uint32_t>(__builtin_ctzll(m)));
      for (std::uint64_t m = data & ((std::uint64_t{1} << start) - 1); m && !found; m &= m - 1)
        found = consider(static_cast<std::uint32_t>(__builtin_ctzll(m)));
    } else {
      auto scan = [&](std::uint32_t lo, std::uint32_t hi) {
        for (std::uint32_t c = first_bit(busy, lo, hi); c != kNoQueue; c = first_bit(busy, c + 1, hi))
          if (consider(c)) return true;
        return false;
      };
      if (!scan(start, data_queues_ + 1)) scan(1, start);
    }
  }
  if (q == kNoQueue) q = earliest;
  if (q != 0) op.rr_queue = static_cast<std::uint16_t>(q);
  Packet* p = egress_pop(o, q);
  if (!lossless_) queued_bytes_[base + q] -= p->size_bytes;
  --op.egress_packets;
  op.backlog -= p->size_bytes;
  send(o, p);
  // Room in the egress queue: more grants may go through; then come back when the link is free.
  try_grant(o);
  if (op.egress_packets && !op.tx_pending) {
    op.tx_pending = true;
    fabric_.schedule(op.tx_free_at, this, kTxDone, o);
  }
}

void Switch::try_transmit_fc(std::uint16_t o) {
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
  // Control first; then the data queues EgressFc schedules (stopped queues are passed over). Data takes
  // its downstream credit here, so a stopped queue never holds credit that a running one could use.
  const std::size_t base = std::size_t{o} * egress_queues_;
  const bool control = (op.egress_nonempty[0] & 1) != 0;
  const bool control_ready = control && egress_front(base).ready <= now;
  Packet* p = nullptr;
  if (!control_ready) {
    Packet* d = efc_->peek(o, now);
    if (d && (!control || d->t_ready <= now) && op.link->has_credit(d->vc, d->size_bytes)) {
      p = efc_->pop(o, now, fc_out_);
      op.link->take_credits(p->vc, p->size_bytes);
    }
  }
  if (!p && control) p = egress_pop(o, 0);
  if (!p) return;  // every data queue empty or stopped, or no credit: a RESUME, credit or grant calls back
  --op.egress_packets;
  op.backlog -= p->size_bytes;
  send(o, p);
  if (!fc_out_.empty()) send_fc_frames();
  try_grant(o);
  if (op.egress_packets && !op.tx_pending) {
    op.tx_pending = true;
    fabric_.schedule(op.tx_free_at, this, kTxDone, o);
  }
}

// Telemetry: the packet's local queuing delay here is the time it left after the earliest it could have
// with no other traffic: its arrival event (head in, plus ingress, on the clock) plus the crossbar latency.
// Added to the accumulated field of data packets, PTMs and PTRs.
void Switch::add_queuing_delay(Packet* p, Ps start) const {
  if (p->type != PacketType::data && p->type != PacketType::ptm && p->type != PacketType::ptr) return;
  if (p->t_tail < p->ser_ps) return;
  const Ps earliest = on_clock(on_clock(p->t_tail - p->ser_ps + ingress_ps_) + xbar_ps_);
  if (start > earliest) p->tm_delay_ns += static_cast<std::uint32_t>((start - earliest + 500) / 1000);
}

inline void Switch::send(std::uint16_t o, Packet* p) {
  OutPort& op = out_ports_[o];
  const Ps now = fabric_.now();
  // ECN at dequeue: the packet carries the congestion it leaves behind (no queueing delay on the signal).
  if (ecn_threshold_ && p->ect && op.backlog > ecn_threshold_ && !p->ce) {
    p->ce = 1;
    ++counters_.ce_marked;
  }
  // The egress switch acknowledges each timestamped packet as it leaves for the host: from here on its
  // order can no longer change.
  if (p->fc_stamped && p->type == PacketType::data && flowcut_ && routing_.peer(id_, o) == RoutingTable::kHost)
    send_flowcut_ack(p);
  Link* link = op.link;
  const Ps ser = link->serialization(p->size_bytes);
  // Cut-through: start once the packet is at the egress, and never so early that the tail would overrun.
  Ps start = std::max({now, p->t_ready, link->free_at()});
  if (p->t_tail > ser && p->t_tail - ser > start) start = p->t_tail - ser;
  op.tx_free_at = start + ser;
  if (telemetry_) add_queuing_delay(p, start);
  ++counters_.packets_forwarded;
  if (op.fw == link->target_if()) link->transmit(p, start - now, ser);  // bound to its link: no virtual call
  else send_foreign(op.fw, p, start - now);
}

void Switch::send_foreign(PacketFwIf* fw, Packet* p, Ps delay) {
  foreign_.bind(fw, &fabric_);
  foreign_.send(p, delay);
}

void Switch::fc_frame_in(Packet* p) {
  const std::uint16_t port = p->in_port;
  release_input(p);
  efc_->control(port, p, fabric_.now());
  fabric_.pool().put(p);
  try_transmit(port);
}

void Switch::send_fc_frames() {
  for (const FcFrame& fr : fc_out_) {
    Packet* f = fabric_.pool().get();
    f->type = fr.pause ? PacketType::pause : PacketType::resume;
    f->fc_pfc = fr.pfc ? 1 : 0;
    f->fc_fid = fr.fid;
    f->flow = fr.flow;
    f->tclass = fr.tclass;
    f->size_bytes = 64;
    f->vc = 0;
    f->in_port = fr.port;
    f->in_size = 0;
    // A lost RESUME would stop a flow for good: the queue grows rather than drop a frame.
    auto& q = local_control_[fr.port];
    if (q.full()) q.raise_limit(2 * q.limit());
    q.push_back(f);
    fabric_.schedule(fabric_.now(), this, kFcKick, fr.port);
  }
  fc_out_.clear();
}

// ---- Flowcut -------------------------------------------------------------------------------------------

bool Switch::flowcut_ack_in(Packet* a) {
  if (!flowcut_->on_ack_packet(a)) return false;
  release_input(a);
  fabric_.pool().put(a);
  return true;
}

void Switch::send_flowcut_ack(const Packet* p) {
  Packet* a = flowcut_->make_ack(p);
  if (!a) return;
  if (flowcut_->retraces()) return inject_control(a, p->in_port);
  a->in_port = p->in_port;
  inject_control(a, route(a));
}

Ps Switch::ack_transmission_term(std::uint16_t out_port, std::uint32_t ack_bytes, unsigned hops) const {
  // S·h/B with B the switch's port rate (De Sensi et al., Section II-B): the nominal rate, also when the entry's
  // own output link is degraded. At a degraded link's rate the term would count that link's slowness on every
  // hop, exceed the RTT itself and leave a per-hop-count minimum of 1 ps, against which every later sample of
  // that hop count reads as 256 times the base RTT.
  const FlowcutParams& fc = *config_.flowcut;
  return out_ports_[out_port].link->nominal_serialization(ack_bytes + fc.data_header_bytes + fc.timestamp_bytes) *
         std::max<unsigned>(1, hops);
}

void Switch::inject_control(Packet* p, std::uint16_t o) {
  if (local_control_[o].full()) {
    ++flowcut_->counters().control_overflows;
    fabric_.pool().put(p);
    return;
  }
  p->in_port = o;
  p->in_size = 0;
  local_control_[o].push_back(p);
  try_grant(o);
  try_transmit(o);
}

inline Packet* Switch::egress_pop(std::uint16_t o, std::uint32_t q) {
  const std::size_t eq = std::size_t{o} * egress_queues_ + q;
  EgressQueue& e = egress_[eq];
  const EgressEntry& front = e.slots[e.head];
  Packet* p = front.packet;
  p->t_ready = front.ready;
  e.bytes -= p->size_bytes;
  if (--e.count == 0) {
    e.head = 0;
    set_bit(out_ports_[o].egress_nonempty, q, false);
  } else {
    if (++e.head == e.cap) e.head = 0;
    // The new head leaves at the port's next transmission, a serialization or more from now, which reads its
    // packet. Pushed at its grant, the packet is out of the nearer caches by now: start bringing it in
    // (docs/performance.md, "A prefetch that needs no hook").
    __builtin_prefetch(egress_front(eq).packet);
  }
  if (q != 0) set_bit(out_ports_[o].data_slot_free, q, data_slot_free(eq));
  return p;
}

std::uint32_t Switch::first_bit(const QueueBits& b, std::uint32_t lo, std::uint32_t hi) {
  for (std::uint32_t i = lo; i < hi;) {
    const std::uint64_t w = b[i >> 6] >> (i & 63);
    if (w) {
      const std::uint32_t hit = i + static_cast<std::uint32_t>(__builtin_ctzll(w));
      return hit < hi ? hit : kNoQueue;
    }
    i = (i | 63) + 1;
  }
  return kNoQueue;
}

}  // namespace netasic
