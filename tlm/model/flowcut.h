// Flowcut switching (De Sensi et al., "Flowcut Switching: High-Performance Adaptive Routing with In-Order
// Delivery Guarantees"): the per-switch and per-NIC engines around the Flowcut table block model.
//
//   Section II-A  a flow keeps its path while any of its bytes are in flight; an entry is created on a
//                 table miss (a new flowcut, routed to the least-loaded candidate) and deleted when the
//                 last in-flight byte is acknowledged by the egress switch's ACK.
//   Section II-B  the ingress (or the NIC) normalizes each ACK's RTT by the minimum RTT seen for its hop
//                 count, keeps per-flow moving averages of it and of its change, and drains a flow whose
//                 averages pass their thresholds: XOFF to the source through FGFC, XON once nothing of the
//                 flow is in flight, after which the next packet starts a new flowcut.
//   Section II-C  variants: full switch (state and rerouting at every switch, ACKs retrace the path),
//                 ingress only (state at the host-facing switch), NIC only (state in the source NIC; a
//                 new flowcut takes a new UDP source port, the ECMP entropy).
//
// Order guarantee with a full table (docs/flowcut.md): with overflow policy `hold`, a packet that finds
// no free entry waits in the input buffer (with every later packet of its flow) until an entry frees.
// With `untracked`, it goes on the flow's ECMP path and its bytes are counted in a small array of shadow
// counters indexed by the flow hash; a new entry whose shadow counter is non-zero must start on the ECMP
// path, so a flow never leaves a path while any of its untracked bytes may still be on it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tlm/blocks/fgfc.h"
#include "tlm/blocks/flowcut_table.h"
#include "tlm/common/units.h"

namespace netasic {

enum class FlowcutOverflow { untracked, hold };
// What a switch does with a draining flow whose source resumed on its own (the XOFF's pause period ran out
// before the flowcut drained, e.g. because an ACK was lost): old_path is the paper's rule (De Sensi et al.,
// Section IV-A): the drain ends there and the flowcut keeps its path, with no new drain, until its entry
// empties; repause sends the XOFF again, up to FlowcutEngine::kMaxDrainRefreshes times, then gives the drain
// up and lets the RTT monitor start new ones.
enum class FlowcutSourceTimeout { old_path, repause };
// NIC-only: when a new flowcut takes a new UDP source port (new ECMP entropy). after_drain: only the first
// flowcut after a drain, the path change of Section II-D ("if the current path is congested, it would stop the
// transmission ... until all the ACKs are received ... the source NIC could force the selection of a different
// path by changing ... the source port"); a flowcut that ends because its ACKs came back keeps its path.
// every_flowcut: every new flowcut draws a new port.
enum class FlowcutNicNewPath { after_drain, every_flowcut };

// Builds the table a switch or NIC uses: the C++ model unless a co-simulation adapter is plugged in.
using FlowcutTableFactory =
    std::function<std::unique_ptr<FlowcutTableIf>(const FlowcutTableConfig& config, const std::string& owner)>;

struct FlowcutParams {
  FlowcutVariant variant = FlowcutVariant::ingress_only;
  FlowcutTableFactory table_factory;  // empty: the C++ model (FlowcutTable)
  FgfcGeneratorFactory fgfc_factory;  // empty: the C++ model (FgfcGenerator)
  FlowcutTableConfig table;
  FlowcutOverflow overflow = FlowcutOverflow::untracked;
  std::uint32_t shadow_counters = 1024;
  double alpha = 0.25;               // weight of a new sample in the moving averages
  double rtt_ratio_threshold = 4.0;  // drain when avg(normalized RTT) exceeds it
  double rtt_diff_threshold = 1.0;   // drain when avg(change of normalized RTT) exceeds it
  std::uint32_t ack_bytes = 20 + 26;  // Flowcut ACK: 20 B of fields plus the L2 header
  std::uint32_t timestamp_bytes = 8;  // extra header on data packets from ingress to egress switch
  std::uint32_t data_header_bytes = 64;  // the NIC's data header (for the RTT's transmission term)
  Ps pause_period_ps = 200 * kPsPerUs;  // XOFF period: the source resumes on its own after it
  FlowcutSourceTimeout after_source_timeout = FlowcutSourceTimeout::repause;
  FlowcutNicNewPath nic_new_path = FlowcutNicNewPath::after_drain;
  bool xoff_with_credit = false;
  std::uint32_t xoff_credit_bytes = 0;
  std::uint32_t min_packets_left = 0;  // drain only flows with at least this many packets still to send
  std::uint32_t early_resume_packets = 0;  // XON with at most this many packets in flight (k; 0 = strict)
  std::uint32_t max_payload_bytes = 4096;  // the largest payload of a data packet (nic.mtu_bytes): early resume's unit
  std::uint32_t nic_cache_entries = 16;
  std::uint32_t fgfc_gap_cycles = 64;  // at most one FGFC frame per flow per gap (switch clock)
  double ack_loss = 0;                 // fault injection: probability a Flowcut ACK is lost
};

// Minimum RTT per hop count (global to its owner, as the paper keeps it) and the per-flow averages, in
// the 16-bit fixed point the table stores (8.8: normalized RTT up to 255.99 in steps of 1/256).
class RttMonitor {
 public:
  struct Update {
    bool drain;
    std::uint16_t avg, last, diff_avg;
  };
  explicit RttMonitor(const FlowcutParams& p) : params_(p) {}
  // `rtt` already has the transmission term removed.
  Update update(Ps rtt, unsigned hops, std::uint16_t avg, std::uint16_t last, std::uint16_t diff_avg, bool first);
  Ps min_rtt(unsigned hops) const { return hops < min_.size() ? min_[hops] : 0; }

 private:
  const FlowcutParams& params_;
  std::vector<Ps> min_;
};

inline std::unique_ptr<FlowcutTableIf> make_flowcut_table(const FlowcutParams& p, const FlowcutTableConfig& config,
                                                          const std::string& owner) {
  if (p.table_factory) return p.table_factory(config, owner);
  return std::make_unique<FlowcutTable>(config);
}

inline std::unique_ptr<FgfcGeneratorIf> make_fgfc_generator(const FlowcutParams& p, const FgfcGeneratorConfig& config,
                                                            const std::string& owner) {
  if (p.fgfc_factory) return p.fgfc_factory(config, owner);
  return std::make_unique<FgfcGenerator>(config);
}

struct FlowcutCounters {
  std::uint64_t flowcuts = 0;        // entries created (new flowcuts)
  std::uint64_t path_changes = 0;    // new flowcuts on a different port than the flow's previous one
  std::uint64_t drains = 0;          // XOFF sent (or NIC-internal pause) to drain a flow
  std::uint64_t drains_completed = 0;
  std::uint64_t drain_refreshes = 0;   // XOFF sent again: the source resumed on its period before draining
  std::uint64_t drains_abandoned = 0;  // drains given up: at the source's timeout (old_path) or after the renewals
  std::uint64_t early_resumes = 0;
  std::uint64_t max_packets_at_early_resume = 0;  // most packets an entry had in flight when released early
  std::uint64_t overflows = 0;       // packets that found the table (or their set) full
  std::uint64_t untracked_packets = 0;
  std::uint64_t held_packets = 0;
  std::uint64_t acks_generated = 0;
  std::uint64_t acks_unmatched = 0;  // ACK for a flow with no entry (counted against a shadow counter)
  std::uint64_t xoff_frames = 0, xoff_credit_frames = 0, xon_frames = 0;
  std::uint64_t fgfc_coalesced = 0;
  std::uint64_t acks_lost = 0;       // fault injection
  std::uint64_t control_overflows = 0;  // generated control frames that found their queue full (dropped, counted)
  void add(const FlowcutCounters& o);
};

}  // namespace netasic
