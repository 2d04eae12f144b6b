// Loss-driven TCP congestion window of one flow at the source NIC: Reno slow start and congestion
// avoidance (RFC 5681, with RFC 3465 byte counting, L = 2 segments), NewReno fast retransmit and fast
// recovery (RFC 6582), and the retransmission timer (RFC 6298) with a floor (min RTO) and exponential
// backoff. The LetFlow paper (Vanini et al., NSDI 2017, section 5) ran Linux TCP (kernel 2.6.26) in its
// simulations and TCP New Reno in its testbed; its defaults (tb/scenario_keys.cpp) follow that kernel.
//
// Sequence numbers are packet numbers (PSNs); every packet counts as one segment of `mss` bytes (the
// flow's short last packet too, as Linux counts cwnd in packets). The sender tells the window:
//   - on_ack(ack, nxt): a cumulative acknowledgement, `ack` the next PSN the receiver expects, `nxt` one
//     past the highest PSN the sender has outstanding (its send point). The answer says whether the first
//     unacknowledged packet must be sent again now (the third duplicate ACK, or a partial ACK in recovery);
//   - on_timeout(nxt, sent_high): the retransmission timer expired;
//   - rtt_sample(rtt): a round-trip time measured on an ACK that acknowledged new data.
// Rules:
//   - slow start (cwnd < ssthresh): cwnd += min(bytes newly acknowledged, 2 * mss);
//   - congestion avoidance: one mss per cwnd of bytes acknowledged;
//   - dupthresh duplicate ACKs outside recovery (and past `recover`): ssthresh = max(flight / 2, 2 * mss),
//     cwnd = ssthresh + dupthresh * mss, recover = nxt; each further duplicate inflates cwnd by one mss; a
//     partial ACK (below recover) resends the next hole and deflates cwnd by what it acknowledged, less one
//     mss; a full ACK ends recovery with cwnd = ssthresh (RFC 6582's second choice; Linux does the same);
//   - a timeout: ssthresh = max(flight / 2, 2 * mss), cwnd = mss, recovery ends, recover = sent_high, the
//     timer backs off (doubles, up to max_rto) until an ACK acknowledges new data;
//   - RTO = max(min_rto, srtt + 4 * rttvar) (RFC 6298, clock granularity 0), min_rto before a sample.
// cwnd never goes below one mss, nor above max_window (when set: the receive window, nic.window_bytes).
#pragma once

#include <cstdint>

#include "tlm/common/units.h"

namespace netasic {

struct TcpConfig {
  std::uint64_t mss = 4096;            // bytes (nic.mtu_bytes)
  std::uint64_t initial_window = 0;    // bytes; 0: RFC 3390, min(4 mss, max(2 mss, 4380 B))
  std::uint64_t max_window = 0;        // bytes; 0 = no cap
  std::uint32_t dupthresh = 3;         // duplicate ACKs before a fast retransmit
  Ps min_rto = 200000 * kPsPerUs;       // Linux TCP_RTO_MIN, 200 ms
  Ps max_rto = Ps{120000000} * kPsPerUs;  // Linux TCP_RTO_MAX, 120 s
  // Receiver and NIC (the transport's, kept here so that one struct carries the TCP keys).
  std::uint32_t ack_every = 2;         // one ACK per this many in-order packets ...
  Ps delayed_ack = 40000 * kPsPerUs;    // ... or this long after the first of them (Linux TCP_DELACK_MIN)
  std::uint64_t tso_bytes = 65536;     // segmentation offload: a flow's burst sent back to back
  bool sack = false;                   // selective acknowledgements (RFC 2018) and RFC 6675 loss recovery
  std::uint32_t sack_blocks = 3;       // SACK blocks per ACK (3: Linux with timestamps; at most 4)
};

class TcpReno {
 public:
  enum class Resend : std::uint8_t { none, fast_retransmit, partial_ack };

  explicit TcpReno(const TcpConfig& config);

  Resend on_ack(std::uint32_t ack, std::uint32_t nxt);
  void on_timeout(std::uint32_t nxt, std::uint32_t sent_high);
  void rtt_sample(Ps rtt);
  // SACK-based loss recovery (RFC 6675; the sender keeps the scoreboard and decides when to recover):
  //   - on_sack_ack(ack): a cumulative acknowledgement; in recovery the window stays at ssthresh, and the
  //     ACK that reaches the recovery point ends recovery (true) with cwnd = ssthresh; outside recovery
  //     the window grows as with on_ack. No duplicate-ACK counting or window inflation here;
  //   - may_recover(): no recovery running and the cumulative point has reached the last recovery point
  //     (RFC 6675 5.1: none starts for data sent before a timeout);
  //   - enter_sack_recovery(nxt): ssthresh = cwnd = max(flight / 2, 2 * mss), recover = nxt.
  bool on_sack_ack(std::uint32_t ack);
  bool may_recover() const { return !in_recovery_ && una_ >= recover_; }
  void enter_sack_recovery(std::uint32_t nxt);
  // The sender may have `packets` outstanding: within cwnd and the receive window (one always may).
  bool allows(std::uint32_t packets) const {
    const std::uint64_t bytes = std::uint64_t{packets} * config_.mss;
    return packets <= 1 || (bytes <= cwnd_ && (config_.max_window == 0 || bytes <= config_.max_window));
  }
  // Caps cwnd at `bytes` (at least one mss): another controller's window (nic.cc = dctcp) bounds this one.
  void clamp(std::uint64_t bytes);

  std::uint32_t una() const { return una_; }
  std::uint64_t cwnd() const { return cwnd_; }
  std::uint64_t ssthresh() const { return ssthresh_; }
  bool in_recovery() const { return in_recovery_; }
  std::uint32_t recover() const { return recover_; }
  std::uint32_t dupacks() const { return dupacks_; }
  Ps rto() const;  // the current timeout, backoff included
  Ps srtt() const { return srtt_; }
  std::uint32_t backoff() const { return backoff_; }
  std::uint64_t fast_retransmits() const { return fast_retransmits_; }
  std::uint64_t partial_acks() const { return partial_acks_; }
  std::uint64_t timeouts() const { return timeouts_; }
  std::uint64_t min_cwnd() const { return min_cwnd_; }
  const TcpConfig& config() const { return config_; }

 private:
  void grow(std::uint64_t acked);
  void set_cwnd(std::uint64_t bytes);
  std::uint64_t half_flight(std::uint32_t nxt) const;

  TcpConfig config_;
  std::uint64_t cwnd_;
  std::uint64_t ssthresh_ = ~std::uint64_t{0};
  std::uint64_t ca_acked_ = 0;  // congestion avoidance: bytes acknowledged towards the next mss
  std::uint64_t min_cwnd_;
  std::uint32_t una_ = 0;          // first PSN not acknowledged
  std::uint32_t recover_ = 0;      // NewReno: recovery ends when una reaches it
  std::uint32_t dupacks_ = 0;
  bool in_recovery_ = false;
  Ps srtt_ = 0, rttvar_ = 0;
  bool has_sample_ = false;
  std::uint32_t backoff_ = 0;
  std::uint64_t fast_retransmits_ = 0, partial_acks_ = 0, timeouts_ = 0;
};

}  // namespace netasic
