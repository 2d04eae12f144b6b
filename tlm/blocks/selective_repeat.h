// Selective repeat with direct data placement: the receiver's placement scoreboard (which PSNs have been
// written at their offset, and the SACK it returns) and the sender's retransmission scoreboard.
//
// Receiver (SackReceiver). Every packet carries its offset, so an early packet is written to the
// application's memory at once: nothing is buffered. The receiver keeps only the cumulative point (every
// PSN below it is placed) and the ranges placed above it, as disjoint, non-adjacent intervals. The
// application sees the bytes below the cumulative point, in order. A SACK carries the cumulative point
// and at most N ranges above it: first the range holding the packet that triggered the SACK, then the
// others lowest first (RFC 2018's rule, with the lowest ranges, nearest the holes, in place of the most
// recent ones).
//
// Sender (SrSender). Per PSN: unsent, in flight, lost (queued for resending) or acknowledged; and the
// order number of its latest transmission. A transmission is presumed lost once `dupthresh` packets
// transmitted after it have been acknowledged (the count of RFC 6675's IsLost, taken in transmission
// order as RACK does, so a resend is judged against what was sent after it, not after the original).
// Consequences:
//   - reordering by fewer than `dupthresh` packets never triggers a resend;
//   - a hole is resent at most once per SACK round: its resend gets a new order number, so the hole is
//     presumed lost again only when `dupthresh` packets sent after the resend are acknowledged;
//   - a lost tail (fewer than `dupthresh` packets sent after it) is recovered only by the timeout,
//     which presumes everything in flight lost.
// Loss detection is amortized O(1) per acknowledged packet: the transmissions wait in a FIFO in order,
// and the k largest acknowledged order numbers (k = dupthresh) in a min-heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <vector>

namespace netasic {

struct SackBlock {
  std::uint32_t start = 0;  // first PSN of the range
  std::uint32_t end = 0;    // one past its last PSN
  friend bool operator==(const SackBlock& a, const SackBlock& b) { return a.start == b.start && a.end == b.end; }
};

class SackReceiver {
 public:
  // Places `psn`. Returns false for a duplicate (below the cumulative point or already placed).
  bool place(std::uint32_t psn);
  // Every PSN below it is placed.
  std::uint32_t cumulative() const { return cum_; }
  bool has_ranges() const { return !ranges_.empty(); }  // something placed above a hole
  // Writes at most `max` ranges above the cumulative point to `out`: the one holding `recent` first (when
  // `recent` is above the cumulative point), then the others lowest first. Returns how many.
  std::size_t blocks(std::uint32_t recent, SackBlock* out, std::size_t max) const;
  std::size_t ranges() const { return ranges_.size(); }
  std::size_t max_ranges() const { return max_ranges_; }
  bool placed(std::uint32_t psn) const;

 private:
  std::uint32_t cum_ = 0;
  std::map<std::uint32_t, std::uint32_t> ranges_;  // start -> end; disjoint, non-adjacent, above cum_
  std::size_t max_ranges_ = 0;
};

enum class SrState : std::uint8_t { unsent, in_flight, lost, acked };

struct SrAckResult {
  std::vector<std::uint32_t> acked;  // PSNs acknowledged by this SACK for the first time
  std::vector<std::uint32_t> lost;   // PSNs now presumed lost: to resend (oldest transmission first)
  void clear() {
    acked.clear();
    lost.clear();
  }
};

class SrSender {
 public:
  // `packets` PSNs (0 .. packets-1); `dupthresh` >= 1.
  SrSender(std::uint32_t packets, std::uint32_t dupthresh);

  // A transmission of `psn` (first or resend) carrying `bytes`; it is in flight from now on.
  void sent(std::uint32_t psn, std::uint32_t bytes);
  // A SACK: every PSN below `cum` and in each block has arrived.
  void on_sack(std::uint32_t cum, const SackBlock* blocks, std::size_t n, SrAckResult& out);
  // Retransmission timeout: every packet in flight is presumed lost (appended to `lost`, lowest first).
  void on_timeout(std::vector<std::uint32_t>& lost);

  SrState state(std::uint32_t psn) const { return state_[psn]; }
  std::uint32_t cumulative() const { return cum_; }
  std::uint64_t inflight_bytes() const { return inflight_; }
  std::uint32_t acked_count() const { return acked_count_; }
  std::uint32_t dupthresh() const { return dupthresh_; }
  std::uint64_t transmissions() const { return next_tx_; }

 private:
  void ack(std::uint32_t psn, SrAckResult& out);
  void detect_losses(SrAckResult& out);

  std::uint32_t packets_;
  std::uint32_t dupthresh_;
  std::vector<SrState> state_;
  std::vector<std::uint32_t> bytes_;
  std::vector<std::uint64_t> tx_;  // order number of the latest transmission
  std::uint64_t next_tx_ = 0;
  std::deque<std::pair<std::uint64_t, std::uint32_t>> order_;  // transmissions in order: (number, psn)
  std::priority_queue<std::uint64_t, std::vector<std::uint64_t>, std::greater<>> top_;  // k largest acked numbers
  std::uint32_t cum_ = 0;
  std::uint32_t acked_count_ = 0;
  std::uint64_t inflight_ = 0;
};

}  // namespace netasic
