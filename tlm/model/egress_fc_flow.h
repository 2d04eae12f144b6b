// Per-flow PAUSE / RESUME at the egress queues: the bookkeeping FlowSail, BFC and the ideal scheme share
// (FlowPauseFc), and the schemes switch.flow_control = bfc and ideal (see egress_fc.h).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "tlm/model/egress_fc.h"

namespace netasic {

// A scheme that pauses single flows upstream. Each PAUSE is remembered under the counter that sent it (a
// FlowSail NFT or CFT entry, or an exact flow, per group) so that the counter's RESUME reaches every flow
// it paused, on every input the flow came from.
class FlowPauseFc : public EgressFc {
 protected:
  enum : std::uint64_t { kNftKey = 0, kCftKey = 1, kFlowKey = 2 };
  static std::uint64_t ref_key(std::uint32_t group, std::uint64_t kind, std::uint32_t index) {
    return (std::uint64_t{group} << 40) | (kind << 32) | index;
  }

  FlowPauseFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng,
              std::uint32_t queues_per_group)
      : EgressFc(config, radix, pool, rng, queues_per_group), refs_(radix) {}

  // p is a congestion contributor at output o; `first`: its counter `key` went 0 -> 1, PAUSE p's flow.
  void mark(std::uint16_t o, Packet* p, std::uint64_t key, bool first, std::vector<FcFrame>& out);
  // Counter `key` of output o returned to 0: RESUME every flow it paused.
  void unmark(std::uint16_t o, std::uint64_t key, std::vector<FcFrame>& out);

 private:
  struct Ref {  // who was sent a PAUSE that a RESUME must undo
    std::uint32_t fid, flow;
    std::uint16_t port;
    std::uint8_t tclass;
  };
  std::vector<std::unordered_map<std::uint64_t, std::vector<Ref>>> refs_;  // per output
};

// BFC and ideal: each flow with packets at a port sits in one queue and is counted exactly; a queue above
// the threshold marks the arriving packet and pauses its flow upstream; upstream, a queue stops while it
// holds a paused flow.
class FlowQueueFc : public FlowPauseFc {
 protected:
  struct FlowState {
    std::uint32_t queue = kNone;
    std::uint64_t bytes = 0;   // buffered in this port's queues
    std::uint32_t pause_num = 0;
    bool paused = false;       // stopped by the downstream neighbour
  };
  FlowQueueFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng,
              std::uint32_t queues_per_group)
      : FlowPauseFc(config, radix, pool, rng, queues_per_group), flows_(radix) {}

  FlowState& flow(std::uint16_t o, std::uint32_t fid);
  // The rest of admit() once the flow has its queue: count p, mark it above `low`; the queue id.
  std::uint32_t charge(std::uint16_t o, FlowState& f, Packet* p, std::uint32_t low, std::vector<FcFrame>& out);
  // p left queue q: uncount it from its flow, RESUME the flow once its last marked packet has left.
  FlowState& discharge(std::uint16_t o, Queue& q, const Packet* p, std::vector<FcFrame>& out);
  // The downstream neighbour paused or resumed flow f: its queue stops while it holds a paused flow.
  void set_paused(std::uint16_t o, FlowState& f, bool pause);
  static bool idle(const FlowState& f) { return f.bytes == 0 && f.pause_num == 0 && !f.paused; }
  void forget(std::uint16_t o, std::uint32_t fid) { flows_[o].erase(fid); }

 private:
  std::vector<std::unordered_map<std::uint32_t, FlowState>> flows_;  // per output, by flow id
};

// BFC-style: a new flow takes an empty queue of its group, else a random one (flows then share it and
// stop together); the threshold is 1 hop-BDP over the active queues of the group. A flow's state is
// dropped once it is idle.
class BfcFc final : public FlowQueueFc {
 public:
  BfcFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng)
      : FlowQueueFc(config, radix, pool, rng, queues_per_group(config)) {}

 private:
  std::uint32_t admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void flow_frame(std::uint16_t o, std::uint32_t group, std::uint32_t fid, bool pause, Ps now) override;
};

// Ideal: a queue of its own for every flow (kept for the run), threshold 1 hop-BDP: only the flow that
// fills its queue is paused.
class IdealFc final : public FlowQueueFc {
 public:
  IdealFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng)
      : FlowQueueFc(config, radix, pool, rng, 0) {}

 private:
  std::uint32_t admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void flow_frame(std::uint16_t o, std::uint32_t group, std::uint32_t fid, bool pause, Ps now) override;
};

}  // namespace netasic
