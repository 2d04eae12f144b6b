#include "tlm/model/egress_fc_flow.h"

namespace netasic {

void FlowPauseFc::mark(std::uint16_t o, Packet* p, std::uint64_t key, bool first, std::vector<FcFrame>& out) {
  p->fc_mark = 1;
  ++counters_.marked_packets;
  if (!first) return;
  // pauseNum went 0 -> 1: PAUSE the flow at the hop it came from; remember it for the RESUME.
  ++counters_.pause_frames;
  const Ref r{p->flow_hash, p->flow, p->in_port, p->tclass};
  refs_[o][key].push_back(r);
  out.push_back(FcFrame{true, false, r.fid, r.flow, r.tclass, r.port});
}

void FlowPauseFc::unmark(std::uint16_t o, std::uint64_t key, std::vector<FcFrame>& out) {
  // pauseNum returned to 0: RESUME every flow this counter paused (colliding flows share the counter,
  // and a flow may have reached it from more than one input).
  auto& refs = refs_[o];
  const auto it = refs.find(key);
  if (it == refs.end()) return;
  for (const Ref& r : it->second) {
    ++counters_.resume_frames;
    out.push_back(FcFrame{false, false, r.fid, r.flow, r.tclass, r.port});
  }
  refs.erase(it);
}

FlowQueueFc::FlowState& FlowQueueFc::flow(std::uint16_t o, std::uint32_t fid) { return flows_[o][fid]; }

std::uint32_t FlowQueueFc::charge(std::uint16_t o, FlowState& f, Packet* p, std::uint32_t low,
                                  std::vector<FcFrame>& out) {
  const std::uint32_t id = f.queue;
  const Queue& q = ports_[o].q[id];
  f.bytes += p->size_bytes;
  if (q.bytes + p->size_bytes > low)
    mark(o, p, ref_key(p->tclass % config_.groups, kFlowKey, p->flow_hash), f.pause_num++ == 0, out);
  return id;
}

FlowQueueFc::FlowState& FlowQueueFc::discharge(std::uint16_t o, Queue& q, const Packet* p,
                                                std::vector<FcFrame>& out) {
  FlowState& f = flows_[o][p->flow_hash];
  f.bytes -= p->size_bytes;
  if (f.bytes == 0 && f.paused) --q.stop;
  if (p->fc_mark && --f.pause_num == 0) unmark(o, ref_key(q.group, kFlowKey, p->flow_hash), out);
  return f;
}

void FlowQueueFc::set_paused(std::uint16_t o, FlowState& f, bool pause) {
  f.paused = pause;
  if (f.bytes != 0) {
    if (pause) ++ports_[o].q[f.queue].stop;
    else --ports_[o].q[f.queue].stop;
  }
}

std::uint32_t BfcFc::admit(std::uint16_t o, Packet* p, Ps, std::vector<FcFrame>& out) {
  const std::uint32_t g = p->tclass % config_.groups;
  FlowState& f = flow(o, p->flow_hash);
  if (f.bytes == 0) {
    // A new flow takes an empty queue of its group, else a random one.
    const Port& port = ports_[o];
    const auto& gq = port.group_queues[g];
    f.queue = kNone;
    for (std::uint32_t c : gq)
      if (!port.q[c].head) {
        f.queue = c;
        break;
      }
    if (f.queue == kNone) f.queue = gq[rng_.below(gq.size())];
    if (f.paused) ++ports_[o].q[f.queue].stop;
  }
  return charge(o, f, p, shared_low(o, g), out);
}

void BfcFc::departed(std::uint16_t o, Queue& q, const Packet* p, Ps, std::vector<FcFrame>& out) {
  if (idle(discharge(o, q, p, out))) forget(o, p->flow_hash);
}

void BfcFc::flow_frame(std::uint16_t o, std::uint32_t, std::uint32_t fid, bool pause, Ps) {
  FlowState& f = flow(o, fid);
  if (f.paused == pause) return;
  set_paused(o, f, pause);
  if (idle(f)) forget(o, fid);
}

std::uint32_t IdealFc::admit(std::uint16_t o, Packet* p, Ps, std::vector<FcFrame>& out) {
  const std::uint32_t g = p->tclass % config_.groups;
  FlowState& f = flow(o, p->flow_hash);
  if (f.bytes == 0) {
    if (f.queue == kNone) f.queue = add_queue(o, g);
    if (f.paused) ++ports_[o].q[f.queue].stop;
  }
  const std::uint32_t low = config_.q_low_bytes ? config_.q_low_bytes : static_cast<std::uint32_t>(ports_[o].bdp);
  return charge(o, f, p, low, out);
}

void IdealFc::departed(std::uint16_t o, Queue& q, const Packet* p, Ps, std::vector<FcFrame>& out) {
  discharge(o, q, p, out);
}

void IdealFc::flow_frame(std::uint16_t o, std::uint32_t, std::uint32_t fid, bool pause, Ps) {
  FlowState& f = flow(o, fid);
  if (f.paused != pause) set_paused(o, f, pause);
}

}  // namespace netasic
