// Telemetry-probed path choice at the source NIC (Mizrahi et al., "Non-Shortest Path Routing in Lossy Data
// Center Networks", Section III), plain C++ for one flow.
//
// Path encoding in the UDP source port: the most significant bit selects a shortest (0) or a non-shortest
// (1) path; the switches hash the other 15 bits to pick one of the shortest paths (ECMP over the rewritten
// 5-tuple), or the intermediate group of a non-shortest path (intermediate_group below). The source knows
// neither the topology nor which path a port value gives: it only keeps a set of candidate port values, one
// shortest and `candidates - 1` consecutive non-shortest ones (the paper's |G| - 1 candidates, one through
// each intermediate group).
//
// Measurement: a PTM carries an accumulated queuing delay that every switch adds to; the destination
// returns it in a PTR. Data packets carry the same field and ACKs reflect it, so the path in use is measured
// continuously (on_ack_delay).
//
// Choice: the flow starts on a random shortest path and probes `initial_probes` other candidates. A probe
// round ends when every PTR of the round is back, or at 3R after the round's start, where R is the time the
// first PTR took (the sender waits 2R more), or, when no PTR returns at all, after `probe_timeout` (a lost
// PTM or PTR never stalls the choice). The best path that replied replaces the current one when its delay
// d_new < Delta1 * d_cur and d_cur - d_new > Delta2 * T (T: one MTU's serialization time). d_cur is the
// current path's latest measurement (an ACK's reflected delay, or its own PTR). A round that ends before any
// ACK has measured the current path (the flow's first round: the PTRs of idle alternatives come back before
// the first data packets' ACKs when the current path is queued) keeps its best alternative, and the first
// ACK-reflected delay of the current path decides. After that, one PTM every max(cwnd, Delta3) data packets,
// round robin over the candidates other than the current path.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tlm/common/rng.h"
#include "tlm/common/units.h"

namespace netasic {

constexpr std::uint16_t kNonShortestBit = 0x8000;

inline bool port_is_non_shortest(std::uint16_t port) { return (port & kNonShortestBit) != 0; }

// The switches' hash of a non-shortest port's 15 bits onto the groups other than the source's and the
// destination's (groups > 2): the 15 bits modulo groups - 2, in group order skipping those two, so that
// groups - 2 consecutive values reach every intermediate group once (the candidate set of Section III:
// the shortest path and the non-shortest path through each other group).
std::uint32_t intermediate_group(std::uint16_t port, std::uint32_t groups, std::uint32_t src_group,
                                 std::uint32_t dst_group);

struct TelemetryConfig {
  double delta1 = 0.8;               // a better path's delay is below delta1 x the current path's
  double delta2 = 75;                // ... and below it by more than delta2 MTU serialization times
  std::uint32_t delta3 = 100;        // a PTM every max(cwnd, delta3) data packets
  std::uint32_t initial_probes = 4;  // PTMs when the flow starts
  std::uint32_t candidates = 2;      // candidate paths: 1 shortest + (candidates - 1) non-shortest
  Ps mtu_time_ps = 0;                // T: one MTU packet's serialization time
  Ps probe_timeout_ps = 100 * kPsPerUs;  // a round with no PTR back ends after this
};

class PathSelector {
 public:
  static constexpr std::uint32_t kMaxRound = 64;  // probes outstanding in one round

  PathSelector(const TelemetryConfig& config, std::uint64_t seed, std::uint64_t stream);

  std::uint16_t current_port() const { return current_; }
  const std::vector<std::uint16_t>& candidate_ports() const { return candidates_; }
  // The flow starts at `now`: the ports to send the initial PTMs on (the round opens).
  const std::vector<std::uint16_t>& start(Ps now);
  // A data packet left on the current path; `cwnd_packets` is the congestion window in packets (0: none).
  // True when a PTM is due: `probe` is its port (it joins the open round, or opens one).
  bool on_data_sent(std::uint32_t cwnd_packets, Ps now, std::uint16_t& probe);
  // An ACK reflected the delay a data packet sent on `port` met. True when the path changed (a round ended
  // before the current path was measured, and its best alternative is better than this delay).
  bool on_ack_delay(std::uint16_t port, Ps delay);
  // A PTR for a PTM sent on `port` came back with the forward path's delay. True when the path changed.
  bool on_ptr(std::uint16_t port, Ps delay, Ps now);
  // Ends the open round if its deadline has passed. True when the path changed.
  bool on_time(Ps now);
  // The time the open round ends at the latest (0 when no round is open).
  Ps deadline() const { return open_ ? deadline_ : 0; }
  bool round_open() const { return open_; }
  // The switching rule alone.
  bool better(Ps candidate, Ps current) const;

  Ps current_delay() const { return cur_delay_; }
  bool current_known() const { return cur_known_; }
  bool decision_pending() const { return pending_; }
  std::uint64_t switches() const { return switches_; }
  std::uint64_t probes_sent() const { return probes_; }
  std::uint64_t replies() const { return replies_; }
  std::uint64_t rounds_timed_out() const { return timeouts_; }

 private:
  struct Probe {
    std::uint16_t port;
    bool replied;
    Ps delay;
  };
  void open_round(Ps now);
  void add_probe(std::uint16_t port);
  bool close_round();
  bool switch_to(const Probe& p);
  std::uint16_t next_round_robin();

  TelemetryConfig config_;
  Rng rng_;
  std::vector<std::uint16_t> candidates_;  // [0]: the shortest; then the non-shortest
  std::vector<std::uint16_t> initial_;
  std::uint16_t current_ = 0;
  Ps cur_delay_ = 0;
  bool cur_known_ = false;
  std::array<Probe, kMaxRound> round_{};
  std::uint32_t round_n_ = 0, round_replied_ = 0;
  bool open_ = false;
  Ps round_start_ = 0, deadline_ = 0;
  bool first_back_ = false;
  bool pending_ = false;  // a round's best alternative waits for the current path's first measurement
  Probe pending_probe_{};
  std::uint32_t since_probe_ = 0;  // data packets since the last PTM
  std::uint32_t rr_ = 0;
  std::uint64_t switches_ = 0, probes_ = 0, replies_ = 0, timeouts_ = 0;
};

}  // namespace netasic
