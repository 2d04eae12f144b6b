// FlowSail (Li et al., "FlowSail", IEEE/ACM ToN 2024) at the egress queues: the scheme
// switch.flow_control = flowsail (see egress_fc.h and docs/flowsail.md).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tlm/blocks/flowsail.h"
#include "tlm/common/log_histogram.h"
#include "tlm/model/egress_fc_flow.h"

namespace netasic {

// One Flowsail block (tlm/blocks/flowsail) per port and queue group: it maps flows to the group's queues,
// identifies congested flows (Algorithm 1, thresholds Ql / Qh from the active queues), RESUMEs on dequeue
// (Algorithm 2) and, upstream, isolates a paused flow in rsvQ (Algorithm 3), with an Order Mark pair
// when the flow still has packets in its original queue. What the block leaves to its owner is here: the
// CFT release after switch.fc.cft_release_hrtt (2) idle hop-RTTs, PAUSE nesting per flow, and mirroring
// cfNum into the queues' stop.
class FlowsailFc final : public FlowPauseFc {
 public:
  FlowsailFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng);
  std::uint64_t nft_collisions() const override;
  // The flow_control section, and the NFT's time-weighted occupancy: the busiest table's (port and group).
  void report(Report& r) const override;

 private:
  struct FsPort {
    std::vector<std::unique_ptr<FlowsailIf>> fs;     // per group
    std::unordered_map<std::uint64_t, Ps> cft_seen;  // (group, CFT index) -> last activity
    // PAUSEs received per (group, flow) and not yet resumed. Downstream, a flow can be paused by two
    // counters at once (its NFT entry, then its CFT entry once it is isolated there too): the tables see
    // the first PAUSE and the last RESUME only.
    std::unordered_map<std::uint64_t, std::uint32_t> pause_depth;
    std::vector<TimeWeighted> nft_time;  // per group: ps at each number of busy NFT entries
  };
  static std::uint32_t checked_queues_per_group(const EgressFcConfig& c);

  std::uint32_t admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void flow_frame(std::uint16_t o, std::uint32_t group, std::uint32_t fid, bool pause, Ps now) override;
  // Whether a frame changes the block's view: the first PAUSE or the last RESUME of (group, flow).
  bool outermost(FsPort& port, std::uint32_t group, std::uint32_t fid, bool pause);
  void isolate(std::uint16_t o, std::uint32_t group, std::uint32_t fid, std::uint32_t buffered, unsigned original);
  void touch_cft(FsPort& port, std::uint32_t group, std::uint32_t fid, Ps now);
  void release_stale(std::uint16_t o, std::uint32_t group, std::uint32_t fid, Ps now);
  Ps release_after(std::uint16_t o) const {
    return static_cast<Ps>(config_.cft_release_hrtt * static_cast<double>(ports_[o].hrtt));
  }

  std::vector<FsPort> fs_ports_;  // per output
  std::uint32_t next_mark_ = 0;
  // Marked packets by the rule that marked them (Algorithm 1): the queue above Qh marks every packet, the
  // queue between Ql and Qh only the packets of flows holding more than S_fair.
  std::uint64_t marks_over_q_high_ = 0, marks_over_fair_share_ = 0;
};

}  // namespace netasic
