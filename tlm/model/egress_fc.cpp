#include "tlm/model/egress_fc.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

namespace {
constexpr unsigned kClasses = 8;
// Keys of the PAUSE bookkeeping: which counter (FlowSail NFT or CFT entry, or an exact flow) in which group.
enum : std::uint64_t { kNftKey = 0, kCftKey = 1, kFlowKey = 2 };
std::uint64_t ref_key(std::uint32_t group, std::uint64_t kind, std::uint32_t index) {
  return (std::uint64_t{group} << 40) | (kind << 32) | index;
}
}  // namespace

const char* to_string(FcMode m) {
  switch (m) {
    case FcMode::none: return "none";
    case FcMode::pfc: return "pfc";
    case FcMode::bfc: return "bfc";
    case FcMode::flowsail: return "flowsail";
    case FcMode::ideal: return "ideal";
  }
  return "?";
}

EgressFc::EgressFc(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng)
    : config_(c), pool_(pool), rng_(rng) {
  if (c.groups < 1 || c.groups > kClasses)
    throw InputError(fmt::format("switch.fc.groups = {}: accepted 1..{}", c.groups, kClasses));
  if (c.mode != FcMode::ideal) {
    if (c.queues < 1 || c.queues > 128)
      throw InputError(fmt::format("switch.fc.queues = {}: accepted 1..128 (FlowSail 2..128)", c.queues));
    if (c.queues % c.groups != 0)
      throw InputError(fmt::format("switch.fc.queues = {} does not divide into switch.fc.groups = {} equal groups",
                                   c.queues, c.groups));
    if (c.mode == FcMode::flowsail && c.queues / c.groups < 2)
      throw InputError(fmt::format("FlowSail needs at least 2 queues per group (a normal queue and rsvQ); "
                                   "switch.fc.queues = {} in {} groups",
                                   c.queues, c.groups));
  }
  if (c.q_low_bytes && c.q_high_bytes && c.q_low_bytes > c.q_high_bytes)
    throw InputError(fmt::format("switch.fc.q_low_bytes = {} is above switch.fc.q_high_bytes = {}", c.q_low_bytes,
                                 c.q_high_bytes));
  if (c.pfc_xoff_bytes && c.pfc_xon_bytes > c.pfc_xoff_bytes)
    throw InputError(fmt::format("switch.pfc.xon_bytes = {} is above switch.pfc.xoff_bytes = {}", c.pfc_xon_bytes,
                                 c.pfc_xoff_bytes));
  ports_.resize(radix);
  const std::uint32_t per_group = c.mode == FcMode::ideal ? 0 : c.queues / c.groups;
  for (Port& port : ports_) {
    port.group_queues.resize(c.groups);
    port.rr.assign(c.groups, 0);
    port.pfc_paused.assign(c.groups, 0);
    for (std::uint32_t g = 0; g < c.groups; ++g)
      for (std::uint32_t k = 0; k < per_group; ++k) {
        Queue q;
        q.group = g;
        q.local = k;
        port.group_queues[g].push_back(static_cast<std::uint32_t>(port.q.size()));
        port.q.push_back(q);
      }
    if (c.mode == FcMode::flowsail)
      for (std::uint32_t g = 0; g < c.groups; ++g) {
        FlowsailConfig f;
        f.queues = per_group;
        f.nft_entries = c.nft_entries;
        f.cft_entries = c.cft_entries;
        f.size_bits = 32;
        f.pause_bits = 16;
        f.flownum_bits = 20;
        f.q_low = 1;
        f.q_high = 1;
        f.deferred_release = true;
        port.fs.push_back(std::make_unique<Flowsail>(f, rng_));
      }
  }
  if (c.mode == FcMode::pfc) {
    ingress_bytes_.assign(std::size_t{radix} * kClasses, 0);
    ingress_paused_.assign(std::size_t{radix} * kClasses, 0);
  }
}

EgressFc::~EgressFc() {
  for (Port& port : ports_)
    for (Queue& q : port.q)
      while (q.head) pool_.put(pop_head(q));
}

std::uint64_t EgressFc::nft_collisions() const {
  std::uint64_t n = 0;
  for (const Port& port : ports_)
    for (const auto& fs : port.fs) n += fs->nft_collisions();
  return n;
}

void EgressFc::push(Queue& q, Packet* p) {
  p->next = nullptr;
  if (q.tail) q.tail->next = p;
  else q.head = p;
  q.tail = p;
}

Packet* EgressFc::pop_head(Queue& q) {
  Packet* p = q.head;
  q.head = p->next;
  if (!q.head) q.tail = nullptr;
  p->next = nullptr;
  return p;
}

bool EgressFc::stopped(const Port& port, const Queue& q) const {
  switch (config_.mode) {
    case FcMode::pfc: return port.pfc_paused[q.group] != 0;
    case FcMode::flowsail: return port.fs[q.group]->cf_num(q.local) != 0;
    default: return q.paused_flows != 0;
  }
}

std::uint32_t EgressFc::active_queues(const Port& port, std::uint32_t group) const {
  std::uint32_t n = 0;
  for (std::uint32_t id : port.group_queues[group]) n += port.q[id].head && !stopped(port, port.q[id]);
  return std::max<std::uint32_t>(1, n);
}

std::uint32_t EgressFc::low(const Port& port, std::uint32_t group) const {
  if (config_.q_low_bytes) return config_.q_low_bytes;
  if (config_.mode == FcMode::ideal) return static_cast<std::uint32_t>(port.bdp);
  return static_cast<std::uint32_t>(port.bdp / active_queues(port, group));
}

void EgressFc::on_arrival(const Packet* p, std::vector<FcFrame>& out) {
  if (config_.mode != FcMode::pfc) return;
  if (p->in_port >= ports_.size())
    throw ModelError(fmt::format("PFC: a packet from input {} at a switch with {} ports", p->in_port, ports_.size()));
  const std::size_t k = std::size_t{p->in_port} * kClasses + p->tclass % kClasses;
  ingress_bytes_[k] += p->in_size;
  const std::uint64_t xoff = config_.pfc_xoff_bytes ? config_.pfc_xoff_bytes : 3 * ports_[p->in_port].bdp;
  if (!ingress_paused_[k] && ingress_bytes_[k] > xoff) {
    ingress_paused_[k] = 1;
    ++counters_.pause_frames;
    out.push_back(FcFrame{true, true, 0, 0, static_cast<std::uint8_t>(p->tclass % kClasses), p->in_port});
  }
}

void EgressFc::mark(Port& port, Packet* p, std::uint64_t key, bool first, std::vector<FcFrame>& out) {
  p->fc_mark = 1;
  ++counters_.marked_packets;
  if (!first) return;
  // pauseNum went 0 -> 1: PAUSE the flow at the hop it came from; remember it for the RESUME.
  ++counters_.pause_frames;
  const Ref r{p->flow_hash, p->flow, p->in_port, p->tclass};
  port.refs[key].push_back(r);
  out.push_back(FcFrame{true, false, r.fid, r.flow, r.tclass, r.port});
}

void EgressFc::unmark(Port& port, std::uint64_t key, std::vector<FcFrame>& out) {
  // pauseNum returned to 0: RESUME every flow this counter paused (colliding flows share the counter,
  // and a flow may have reached it from more than one input).
  const auto it = port.refs.find(key);
  if (it == port.refs.end()) return;
  for (const Ref& r : it->second) {
    ++counters_.resume_frames;
    out.push_back(FcFrame{false, false, r.fid, r.flow, r.tclass, r.port});
  }
  port.refs.erase(it);
}

void EgressFc::touch_cft(Port& port, std::uint32_t group, std::uint32_t fid, Ps now) {
  port.cft_seen[ref_key(group, kCftKey, port.fs[group]->cft_index(fid))] = now;
}

void EgressFc::release_stale(Port& port, std::uint32_t group, std::uint32_t fid, Ps now) {
  // A congested flow leaves the CFT once resumed, with nothing in rsvQ, and idle for 2 hop-RTTs.
  Flowsail& fs = *port.fs[group];
  std::uint32_t occupant = 0;
  if (!fs.cft_occupant_idle(fid, occupant)) return;
  const auto it = port.cft_seen.find(ref_key(group, kCftKey, fs.cft_index(fid)));
  if (it != port.cft_seen.end() && now < it->second + 2 * port.hrtt) return;
  fs.cft_release(occupant);
  if (it != port.cft_seen.end()) port.cft_seen.erase(it);
}

void EgressFc::enqueue(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) {
  Port& port = ports_[o];
  const std::uint32_t g = p->tclass % config_.groups;
  const std::uint32_t fid = p->flow_hash;
  p->fc_mark = 0;
  std::uint32_t id = kNone;
  switch (config_.mode) {
    case FcMode::pfc: {
      const auto& gq = port.group_queues[g];
      id = gq[(fid ^ (fid >> 16)) % gq.size()];
      break;
    }
    case FcMode::flowsail: {
      Flowsail& fs = *port.fs[g];
      const std::uint32_t lo = low(port, g);
      const std::uint32_t hi = config_.q_high_bytes ? config_.q_high_bytes : 3 * lo;
      fs.set_thresholds(lo, std::max(lo, hi));
      release_stale(port, g, fid, now);
      const bool congested_flow = fs.in_cft(fid);
      if (congested_flow) touch_cft(port, g, fid, now);
      const FlowsailEnqueue r = fs.enqueue(fid, p->size_bytes);
      if (r.status != FlowsailStatus::ok)
        throw ModelError(fmt::format("FlowSail enqueue refused ({}) at port {}", to_string(r.status), o));
      id = port.group_queues[g][r.queue];
      if (r.congested)
        mark(port, p, ref_key(g, congested_flow ? kCftKey : kNftKey,
                               congested_flow ? fs.cft_index(fid) : fs.nft_index(fid)),
             r.pause, out);
      break;
    }
    case FcMode::bfc:
    case FcMode::ideal: {
      FlowState& f = port.flows[fid];
      if (f.bytes == 0) {
        if (config_.mode == FcMode::ideal) {
          if (f.queue == kNone) {
            Queue q;
            q.group = g;
            q.local = static_cast<std::uint32_t>(port.group_queues[g].size());
            f.queue = static_cast<std::uint32_t>(port.q.size());
            port.group_queues[g].push_back(f.queue);
            port.q.push_back(q);
          }
        } else {
          // A new flow takes an empty queue of its group, else a random one.
          const auto& gq = port.group_queues[g];
          f.queue = kNone;
          for (std::uint32_t c : gq)
            if (!port.q[c].head) {
              f.queue = c;
              break;
            }
          if (f.queue == kNone) f.queue = gq[rng_.below(gq.size())];
        }
        if (f.paused) ++port.q[f.queue].paused_flows;
      }
      id = f.queue;
      f.bytes += p->size_bytes;
      const std::uint64_t length = port.q[id].bytes + p->size_bytes;
      if (length > low(port, g)) mark(port, p, ref_key(g, kFlowKey, fid), f.pause_num++ == 0, out);
      break;
    }
    case FcMode::none: throw ModelError("EgressFc used with switch.flow_control none");
  }
  Queue& q = port.q[id];
  push(q, p);
  q.bytes += p->size_bytes;
  note_queue(q);
  ++port.packets;
  used_ += p->size_bytes;
  if (used_ > counters_.max_buffer_bytes) counters_.max_buffer_bytes = used_;
}

Packet* EgressFc::peek(std::uint16_t o, Ps now) {
  Port& port = ports_[o];
  port.chosen = kNone;
  if (port.packets == 0) return nullptr;
  const bool flowsail = config_.mode == FcMode::flowsail;
  std::uint32_t earliest = kNone;
  // A normal queue's mark leaving late in the scan can free rsvQ, which the scan has passed: look again.
  bool released = true;
  for (int pass = 0; pass < 2 && released; ++pass) {
  released = false;
  earliest = kNone;
  Ps earliest_ready = kNever;
  for (std::uint32_t g = 0; g < config_.groups; ++g) {
    const auto& gq = port.group_queues[g];
    const std::size_t n = gq.size();
    if (n == 0) continue;
    const std::uint32_t start = port.rr[g] % n;
    // Deficit round-robin may pass a queue once to top up its credit, so it looks at each queue twice.
    const std::size_t steps = config_.drr ? 2 * n : n;
    for (std::size_t k = 0; k < steps; ++k) {
      const std::uint32_t slot = static_cast<std::uint32_t>((start + k) % n);
      Queue& q = port.q[gq[slot]];
      if (!q.head || stopped(port, q)) continue;
      // Order Marks cost no wire time. A normal queue's mark leaves as it reaches the head; rsvQ's waits
      // there until its partner has left the original queue (Order Mark matching).
      bool blocked = false;
      while (q.head && q.head->type == PacketType::order_mark) {
        const std::uint32_t m = q.head->psn;
        if (flowsail && q.local == port.fs[g]->rsv_queue()) {
          if (!port.marks_out.erase(m)) {
            ++counters_.order_mark_waits;
            blocked = true;
            break;
          }
        } else {
          port.marks_out.insert(m);
          released = true;
        }
        pool_.put(pop_head(q));
      }
      if (blocked || !q.head) continue;
      const Ps ready = q.head->t_ready;
      if (ready <= now) {
        if (config_.drr) {
          if (q.deficit < static_cast<std::int64_t>(q.head->size_bytes)) {
            q.deficit += config_.quantum_bytes;  // the round moves on; this queue has more credit next time
            continue;
          }
          q.deficit -= q.head->size_bytes;
          port.rr[g] = slot;
        } else {
          port.rr[g] = static_cast<std::uint32_t>((slot + 1) % n);
        }
        port.chosen = gq[slot];
        return q.head;
      }
      if (ready < earliest_ready) {
        earliest_ready = ready;
        earliest = gq[slot];
      }
    }
  }
  }
  if (earliest == kNone) return nullptr;
  port.chosen = earliest;
  return port.q[earliest].head;
}

Packet* EgressFc::pop(std::uint16_t o, Ps now, std::vector<FcFrame>& out) {
  Port& port = ports_[o];
  if (port.chosen == kNone) throw ModelError("EgressFc::pop without a successful peek");
  Queue& q = port.q[port.chosen];
  port.chosen = kNone;
  Packet* p = pop_head(q);
  if (!q.head) q.deficit = 0;
  q.bytes -= p->size_bytes;
  --port.packets;
  used_ -= p->size_bytes;
  const std::uint32_t g = q.group;
  const std::uint32_t fid = p->flow_hash;
  switch (config_.mode) {
    case FcMode::pfc: {
      const std::size_t k = std::size_t{p->in_port} * kClasses + p->tclass % kClasses;
      if (p->in_port >= ports_.size() || ingress_bytes_[k] < p->in_size)
        throw ModelError(fmt::format("PFC: input {} sends a packet it never counted in", p->in_port));
      ingress_bytes_[k] -= p->in_size;
      const std::uint64_t xon = config_.pfc_xon_bytes ? config_.pfc_xon_bytes
                                : config_.pfc_xoff_bytes ? config_.pfc_xoff_bytes / 2
                                                         : 2 * ports_[p->in_port].bdp;
      if (ingress_paused_[k] && ingress_bytes_[k] <= xon) {
        ingress_paused_[k] = 0;
        ++counters_.resume_frames;
        out.push_back(FcFrame{false, true, 0, 0, static_cast<std::uint8_t>(p->tclass % kClasses), p->in_port});
      }
      break;
    }
    case FcMode::flowsail: {
      Flowsail& fs = *port.fs[g];
      const bool rsv = q.local == fs.rsv_queue();
      if (rsv) touch_cft(port, g, fid, now);
      const std::uint32_t index = rsv ? fs.cft_index(fid) : fs.nft_index(fid);
      const FlowsailDequeue r = fs.dequeue(fid, q.local, p->size_bytes, p->fc_mark != 0);
      if (r.status != FlowsailStatus::ok)
        throw ModelError(fmt::format("FlowSail dequeue refused ({}) at port {}", to_string(r.status), o));
      if (r.resume) unmark(port, ref_key(g, rsv ? kCftKey : kNftKey, index), out);
      break;
    }
    case FcMode::bfc:
    case FcMode::ideal: {
      FlowState& f = port.flows[fid];
      f.bytes -= p->size_bytes;
      if (f.bytes == 0 && f.paused) --q.paused_flows;
      if (p->fc_mark && --f.pause_num == 0) unmark(port, ref_key(g, kFlowKey, fid), out);
      if (config_.mode == FcMode::bfc && f.bytes == 0 && f.pause_num == 0 && !f.paused) port.flows.erase(fid);
      break;
    }
    case FcMode::none: break;
  }
  p->fc_mark = 0;
  return p;
}

void EgressFc::control(std::uint16_t o, const Packet* frame, Ps now) {
  Port& port = ports_[o];
  const bool pause = frame->type == PacketType::pause;
  const std::uint32_t g = frame->tclass % config_.groups;
  if (frame->fc_pfc) {
    if (config_.mode == FcMode::pfc) port.pfc_paused[g] = pause;
    return;
  }
  const std::uint32_t fid = frame->fc_fid;
  switch (config_.mode) {
    case FcMode::flowsail: {
      Flowsail& fs = *port.fs[g];
      const std::uint64_t dk = (std::uint64_t{g} << 32) | fid;
      if (pause) {
        if (port.pause_depth[dk]++ != 0) break;
      } else {
        const auto it = port.pause_depth.find(dk);
        if (it == port.pause_depth.end()) break;  // a RESUME with no PAUSE: nothing to undo
        if (--it->second != 0) break;
        port.pause_depth.erase(it);
      }
      release_stale(port, g, fid, now);
      const bool known = fs.in_cft(fid);
      const std::uint32_t buffered = fs.nft_size(fid);
      const unsigned original = fs.nft_queue(fid);
      const FlowsailControl r = fs.control(fid, pause);
      if (r.status == FlowsailStatus::cft_collision) ++counters_.cft_collisions;
      if (r.status == FlowsailStatus::ok) touch_cft(port, g, fid, now);
      if (pause && r.status == FlowsailStatus::ok && !known) {
        ++counters_.isolations;
        if (buffered != 0) {
          // In-order support: a pair of Order Marks, one behind the flow's packets in its original queue,
          // one at the tail of rsvQ ahead of its later packets.
          const std::uint32_t m = ++next_mark_;
          ++counters_.order_marks;
          for (unsigned local : {original, fs.rsv_queue()}) {
            Packet* om = pool_.get();
            om->type = PacketType::order_mark;
            om->psn = m;
            om->size_bytes = 0;
            om->flow_hash = fid;
            push(port.q[port.group_queues[g][local]], om);
          }
        }
      }
      break;
    }
    case FcMode::bfc:
    case FcMode::ideal: {
      FlowState& f = port.flows[fid];
      if (f.paused == pause) break;
      f.paused = pause;
      if (f.bytes != 0) {
        if (pause) ++port.q[f.queue].paused_flows;
        else --port.q[f.queue].paused_flows;
      }
      if (config_.mode == FcMode::bfc && f.bytes == 0 && f.pause_num == 0 && !f.paused) port.flows.erase(fid);
      break;
    }
    default: break;
  }
}

}  // namespace netasic
