#include "tlm/model/egress_fc_flowsail.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

std::uint32_t FlowsailFc::checked_queues_per_group(const EgressFcConfig& c) {
  const std::uint32_t n = queues_per_group(c);
  if (n < 2)
    throw InputError(fmt::format("FlowSail needs at least 2 queues per group (a normal queue and rsvQ); "
                                 "switch.fc.queues = {} in {} groups",
                                 c.queues, c.groups));
  return n;
}

FlowsailFc::FlowsailFc(const EgressFcConfig& c, std::uint16_t radix, PacketPool& pool, Rng& rng)
    : FlowPauseFc(c, radix, pool, rng, checked_queues_per_group(c)), fs_ports_(radix) {
  FlowsailConfig f;
  f.queues = c.queues / c.groups;
  f.nft_entries = c.nft_entries;
  f.cft_entries = c.cft_entries;
  f.size_bits = 32;
  f.pause_bits = 16;
  f.flownum_bits = 20;
  f.q_low = 1;
  f.q_high = 1;
  f.deferred_release = true;
  for (std::uint16_t o = 0; o < radix; ++o)
    for (std::uint32_t g = 0; g < c.groups; ++g) {
      if (c.flowsail_factory)
        fs_ports_[o].fs.push_back(c.flowsail_factory(f, rng_, fmt::format("{}.p{}.g{}", c.owner, o, g)));
      else
        fs_ports_[o].fs.push_back(std::make_unique<Flowsail>(f, rng_));
      fs_ports_[o].nft_time.emplace_back();
      // rsvQ's Order Mark waits at its head for the partner in the original queue.
      ports_[o].q[ports_[o].group_queues[g][fs_ports_[o].fs[g]->rsv_queue()]].mark_waits = true;
    }
}

std::uint64_t FlowsailFc::nft_collisions() const {
  std::uint64_t n = 0;
  for (const FsPort& port : fs_ports_)
    for (const auto& fs : port.fs) n += fs->nft_collisions();
  return n;
}

void FlowsailFc::report(Report& r) const {
  EgressFc::report(r);
  ReportSection& s = r.section("flow_control");
  s.sum("marked_over_q_high", marks_over_q_high_);
  s.sum("marked_over_fair_share", marks_over_fair_share_);
  for (const FsPort& port : fs_ports_)
    for (const TimeWeighted& t : port.nft_time) {
      const LogHistogram h = t.until(r.end_ps(), config_.stats_window);
      if (h.max() == 0) continue;  // a table that never held a packet
      s.max("nft_occupancy/mean", h.mean());
      s.max("nft_occupancy/p99", h.quantile(0.99));
      s.max("nft_occupancy/p9999", h.quantile(0.9999));
      s.max("nft_occupancy/max", h.max());
    }
}

void FlowsailFc::touch_cft(FsPort& port, std::uint32_t group, std::uint32_t fid, Ps now) {
  port.cft_seen[ref_key(group, kCftKey, port.fs[group]->cft_index(fid))] = now;
}

void FlowsailFc::release_stale(std::uint16_t o, std::uint32_t group, std::uint32_t fid, Ps now) {
  // A congested flow leaves the CFT once resumed, with nothing in rsvQ, and idle for cft_release_hrtt hop-RTTs.
  FsPort& port = fs_ports_[o];
  FlowsailIf& fs = *port.fs[group];
  std::uint32_t occupant = 0;
  if (!fs.cft_occupant_idle(fid, occupant)) return;
  const auto it = port.cft_seen.find(ref_key(group, kCftKey, fs.cft_index(fid)));
  if (it != port.cft_seen.end() && now < it->second + release_after(o)) return;
  fs.cft_release(occupant);
  if (it != port.cft_seen.end()) port.cft_seen.erase(it);
}

std::uint32_t FlowsailFc::admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) {
  const std::uint32_t g = p->tclass % config_.groups;
  const std::uint32_t fid = p->flow_hash;
  FsPort& port = fs_ports_[o];
  FlowsailIf& fs = *port.fs[g];
  const std::uint32_t lo = shared_low(o, g);
  const std::uint32_t hi = config_.q_high_bytes ? config_.q_high_bytes : 3 * lo;
  fs.set_thresholds(lo, std::max(lo, hi));
  release_stale(o, g, fid, now);
  const bool congested_flow = fs.in_cft(fid);
  if (congested_flow) touch_cft(port, g, fid, now);
  const FlowsailEnqueue r = fs.enqueue(fid, p->size_bytes);
  if (r.status != FlowsailStatus::ok)
    throw ModelError(fmt::format("FlowSail enqueue refused ({}) at port {}", to_string(r.status), o));
  port.nft_time[g].at(now, fs.nft_busy(), config_.stats_window);
  if (r.congested) {
    ++(r.over_q_high ? marks_over_q_high_ : marks_over_fair_share_);
    mark(o, p, ref_key(g, congested_flow ? kCftKey : kNftKey, congested_flow ? fs.cft_index(fid) : fs.nft_index(fid)),
         r.pause, out);
  }
  return ports_[o].group_queues[g][r.queue];
}

void FlowsailFc::departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) {
  const std::uint32_t g = q.group;
  const std::uint32_t fid = p->flow_hash;
  FsPort& port = fs_ports_[o];
  FlowsailIf& fs = *port.fs[g];
  const bool rsv = q.local == fs.rsv_queue();
  if (rsv) touch_cft(port, g, fid, now);
  const std::uint32_t index = rsv ? fs.cft_index(fid) : fs.nft_index(fid);
  const FlowsailDequeue r = fs.dequeue(fid, q.local, p->size_bytes, p->fc_mark != 0);
  if (r.status != FlowsailStatus::ok)
    throw ModelError(fmt::format("FlowSail dequeue refused ({}) at port {}", to_string(r.status), o));
  port.nft_time[g].at(now, fs.nft_busy(), config_.stats_window);
  if (r.resume) unmark(o, ref_key(g, rsv ? kCftKey : kNftKey, index), out);
}

bool FlowsailFc::outermost(FsPort& port, std::uint32_t group, std::uint32_t fid, bool pause) {
  const std::uint64_t dk = (std::uint64_t{group} << 32) | fid;
  if (pause) return port.pause_depth[dk]++ == 0;
  const auto it = port.pause_depth.find(dk);
  if (it == port.pause_depth.end()) return false;  // a RESUME with no PAUSE: nothing to undo
  if (--it->second != 0) return false;
  port.pause_depth.erase(it);
  return true;
}

void FlowsailFc::flow_frame(std::uint16_t o, std::uint32_t g, std::uint32_t fid, bool pause, Ps now) {
  FsPort& port = fs_ports_[o];
  if (!outermost(port, g, fid, pause)) return;
  FlowsailIf& fs = *port.fs[g];
  release_stale(o, g, fid, now);
  const bool known = fs.in_cft(fid);
  const std::uint32_t buffered = fs.nft_size(fid);
  const unsigned original = fs.nft_queue(fid);
  const FlowsailControl r = fs.control(fid, pause);
  // cfNum changes only here: the queues' stop follows it.
  const auto& gq = ports_[o].group_queues[g];
  for (std::uint32_t local = 0; local < gq.size(); ++local) ports_[o].q[gq[local]].stop = fs.cf_num(local);
  if (r.status == FlowsailStatus::cft_collision) ++counters_.cft_collisions;
  if (r.status == FlowsailStatus::ok) touch_cft(port, g, fid, now);
  if (pause && r.status == FlowsailStatus::ok && !known) isolate(o, g, fid, buffered, original);
}

void FlowsailFc::isolate(std::uint16_t o, std::uint32_t g, std::uint32_t fid, std::uint32_t buffered,
                         unsigned original) {
  ++counters_.isolations;
  if (buffered == 0) return;
  // In-order support: a pair of Order Marks, one behind the flow's packets in its original queue, one at
  // the tail of rsvQ ahead of its later packets.
  const std::uint32_t m = ++next_mark_;
  ++counters_.order_marks;
  const auto& gq = ports_[o].group_queues[g];
  for (unsigned local : {original, fs_ports_[o].fs[g]->rsv_queue()}) push_order_mark(o, gq[local], m, fid);
}

}  // namespace netasic
