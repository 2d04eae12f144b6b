// FlowSail per-port flow control state (Li et al., "FlowSail", IEEE/ACM ToN 2024): flow-to-queue mapping
// and hierarchical congested-flow identification (Algorithm 1), dequeue and RESUME generation
// (Algorithm 2), control-frame handling and isolation in rsvQ (Algorithm 3), S_fair of equation (1).
//
// One egress port with `queues` FIFO queues: 0 .. queues-2 carry normal flows, queues-1 is rsvQ. Tables,
// all indexed by CRC-32 of the flow id (FID) modulo their (power-of-two) size, without chaining: flows
// that collide share one entry's state, as in the paper's Section V, and the model counts it.
//   NFT  per entry: fid, qIdx, size (bytes buffered), pauseNum
//   CFT  per entry: valid, fid, size (bytes in rsvQ), pauseNum, status (paused/resumed), the original
//        queue paused for in-order support and whether it was
//   QT   per queue: length (bytes), flowNum (entries with bytes in it), cfNum (control frames holding it)
// Operations (latency in cycles, request accepted -> response, FlowsailConfig::latency; RTL: 3):
//   enqueue(fid, bytes)           -> queue, congested mark (and whether Qh made it), PAUSE(fid) on pauseNum 0 -> 1
//   dequeue(fid, queue, bytes, congested mark) -> RESUME(fid) on pauseNum 1 -> 0
//   control(fid, pause/resume)    -> Algorithm 3 (rsvQ and original-queue cfNum), CFT insert/release
// Where the pseudo-code is loose this model decides (and the RTL matches):
//   - flowNum counts table entries with buffered bytes per queue (+1 on size 0 -> >0, -1 on >0 -> 0),
//     for rsvQ too; S_fair = Q >> ceil(log2(flowNum)) uses the queue length after the packet is added.
//   - a packet is marked only if pauseNum can count it (pauseNum saturating at 2^pause_bits - 1: the
//     packet goes unmarked, counted in pause_saturations()), so every dequeue decrement has its increment.
//   - a PAUSE whose CFT entry holds another flow cannot isolate the flow: status cft_collision.
//   - RESUME un-pauses the original queue recorded at PAUSE time (not the one NFT names at RESUME time).
//   - an enqueue that would overflow a size or length counter (size_bits) is refused: status overflow;
//     a dequeue of more bytes than the entry or queue holds is refused: status underflow; a dequeue from
//     rsvQ or a RESUME for a flow not in CFT: status not_found. Refused requests change no state.
//   - cfNum counts with pause_bits and saturates; flowNum saturates at 2^flownum_bits - 1.
//   - the CFT release timestamp hysteresis (2 HRTT) is left to the owner (deferred_release, cft_release) and
//     Order Mark matching to the queues (tlm/model/egress_fc).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tlm/common/rng.h"

namespace netasic {

struct FlowsailConfig {
  unsigned queues = 8;            // 2 .. 128 (queues - 1 normal queues + rsvQ); the RTL takes 2 .. 32
  std::uint32_t nft_entries = 1024;  // 2 .. 2^20, power of two
  std::uint32_t cft_entries = 256;   // 2 .. 2^20, power of two
  std::uint32_t q_low = 20000;    // Ql, bytes
  std::uint32_t q_high = 60000;   // Qh, bytes, >= Ql
  unsigned size_bits = 24;        // width of size and queue-length counters: 4 .. 32
  unsigned pause_bits = 8;        // width of pauseNum: 2 .. 16
  unsigned flownum_bits = 16;     // width of flowNum: 2 .. 20
  unsigned latency = 3;
  // false: a congested flow leaves the CFT as soon as it is resumed and has nothing in rsvQ (the RTL);
  // true: it stays until the owner calls cft_release(), which the network model does once the entry has
  // also been idle for 2 hop-RTTs (the paper's timestamp hysteresis).
  bool deferred_release = false;
};

enum class FlowsailStatus { ok, overflow, underflow, cft_collision, not_found };

struct FlowsailEnqueue {
  FlowsailStatus status;
  unsigned queue;
  bool congested;  // the packet's ifCongested mark: hand it back to dequeue()
  bool pause;      // send PAUSE(fid) upstream
  bool over_q_high = false;  // marked because the queue was above Qh (not by the fair-share rule)
};

struct FlowsailDequeue {
  FlowsailStatus status;
  bool resume;  // send RESUME(fid) upstream
};

struct FlowsailControl {
  FlowsailStatus status;
  std::uint32_t paused_queues;  // bitmap of queues 0 .. 31 whose cfNum is non-zero after the frame
};

// The block as the network's FlowSail (tlm/model/egress_fc_flowsail) uses it: the C++ model (Flowsail) or a
// co-simulation adapter (tlm/cosim, switch.flowsail.impl = rtl | rtl_sc). One virtual call per operation.
class FlowsailIf {
 public:
  virtual ~FlowsailIf() = default;
  virtual FlowsailEnqueue enqueue(std::uint32_t fid, std::uint32_t bytes) = 0;
  virtual FlowsailDequeue dequeue(std::uint32_t fid, unsigned queue, std::uint32_t bytes, bool congested) = 0;
  virtual FlowsailControl control(std::uint32_t fid, bool pause) = 0;
  // The network model recomputes Ql and Qh as the number of non-paused queues changes (q_low <= q_high).
  virtual void set_thresholds(std::uint32_t q_low, std::uint32_t q_high) = 0;
  virtual bool in_cft(std::uint32_t fid) const = 0;
  // Deferred release: whether the flow's CFT entry is resumed and empty; release it if so. And whether the
  // entry `fid` indexes is held by some flow (`occupant`) that is resumed and empty.
  virtual bool cft_release(std::uint32_t fid) = 0;
  virtual bool cft_occupant_idle(std::uint32_t fid, std::uint32_t& occupant) const = 0;
  // The NFT entry a flow id indexes: its queue and the bytes it has buffered (0 when the flow is idle).
  virtual unsigned nft_queue(std::uint32_t fid) const = 0;
  virtual std::uint32_t nft_size(std::uint32_t fid) const = 0;
  virtual std::uint32_t nft_index(std::uint32_t fid) const = 0;
  virtual std::uint32_t cft_index(std::uint32_t fid) const = 0;
  virtual std::uint32_t cf_num(unsigned q) const = 0;
  // NFT entries holding buffered bytes (the normal queues' flowNum; rsvQ's counts CFT entries).
  virtual std::uint32_t nft_busy() const = 0;
  virtual std::uint64_t nft_collisions() const = 0;
  virtual const FlowsailConfig& config() const = 0;
  unsigned rsv_queue() const { return config().queues - 1; }
};

class Flowsail final : public FlowsailIf {
 public:
  Flowsail(const FlowsailConfig& config, Rng& rng);

  FlowsailEnqueue enqueue(std::uint32_t fid, std::uint32_t bytes) override;
  FlowsailDequeue dequeue(std::uint32_t fid, unsigned queue, std::uint32_t bytes, bool congested) override;
  FlowsailControl control(std::uint32_t fid, bool pause) override;

  unsigned rsv_queue() const { return config_.queues - 1; }
  std::uint32_t queue_length(unsigned q) const { return qt_.at(q).length; }
  std::uint32_t flow_num(unsigned q) const { return qt_.at(q).flow_num; }
  std::uint32_t cf_num(unsigned q) const override { return qt_.at(q).cf_num; }
  std::uint32_t paused_queues() const;
  std::uint32_t nft_busy() const override {
    std::uint32_t n = 0;
    for (unsigned q = 0; q < rsv_queue(); ++q) n += qt_[q].flow_num;
    return n;
  }
  // S_fair of equation (1) for a queue length and flow count (flow_num >= 1).
  static std::uint32_t s_fair(std::uint32_t length, std::uint32_t flow_num);
  std::uint32_t nft_index(std::uint32_t fid) const override;
  std::uint32_t cft_index(std::uint32_t fid) const override;
  bool in_cft(std::uint32_t fid) const override;
  bool cft_idle(std::uint32_t fid) const;
  bool cft_release(std::uint32_t fid) override;
  bool cft_occupant_idle(std::uint32_t fid, std::uint32_t& occupant) const override;
  unsigned nft_queue(std::uint32_t fid) const override { return nft_[nft_index(fid)].qidx; }
  std::uint32_t nft_size(std::uint32_t fid) const override { return nft_[nft_index(fid)].size; }
  void set_thresholds(std::uint32_t q_low, std::uint32_t q_high) override;

  std::uint64_t nft_collisions() const override { return nft_collisions_; }
  std::uint64_t cft_collisions() const { return cft_collisions_; }
  std::uint64_t pause_saturations() const { return pause_saturations_; }
  std::uint64_t pauses() const { return pauses_; }
  std::uint64_t resumes() const { return resumes_; }
  // Bits per entry: NFT, CFT, QT (as the RTL stores them).
  unsigned nft_entry_bits() const;
  unsigned cft_entry_bits() const;
  unsigned qt_entry_bits() const;
  const FlowsailConfig& config() const override { return config_; }

 private:
  struct Nft {
    std::uint32_t fid = 0;
    unsigned qidx = 0;
    std::uint32_t size = 0;
    std::uint32_t pause_num = 0;
  };
  struct Cft {
    bool valid = false;
    std::uint32_t fid = 0;
    std::uint32_t size = 0;
    std::uint32_t pause_num = 0;
    bool resumed = false;
    bool orig_paused = false;
    unsigned orig_q = 0;
  };
  struct Qt {
    std::uint32_t length = 0;
    std::uint32_t flow_num = 0;
    std::uint32_t cf_num = 0;
  };
  unsigned queue_bits() const;

  FlowsailConfig config_;
  Rng& rng_;
  std::uint32_t size_max_, pause_max_, flownum_max_;
  std::vector<Nft> nft_;
  std::vector<Cft> cft_;
  std::vector<Qt> qt_;
  std::uint64_t nft_collisions_ = 0, cft_collisions_ = 0, pause_saturations_ = 0, pauses_ = 0, resumes_ = 0;
};

const char* to_string(FlowsailStatus s);

// Builds the block of one port and queue group of a switch's FlowSail: the C++ model unless a co-simulation
// adapter is plugged in. `owner` names it (messages, latency trace); `rng` is the stream the model draws
// its random queue choices from.
using FlowsailFactory =
    std::function<std::unique_ptr<FlowsailIf>(const FlowsailConfig& config, Rng& rng, const std::string& owner)>;

}  // namespace netasic
