// The run's flows: what each source NIC sends and what each destination NIC has received.
// One table for the fabric; a NIC touches only the flows it sends or receives.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "tlm/blocks/dctcp.h"
#include "tlm/blocks/selective_repeat.h"
#include "tlm/common/flow_key.h"
#include "tlm/common/units.h"

namespace netasic {

struct Flow {
  std::uint32_t id = 0;
  std::uint32_t src = 0, dst = 0;  // host indices
  std::uint64_t size_bytes = 0;
  Ps start = 0;
  std::uint8_t tclass = 0;
  FlowKey key;
  std::uint32_t hash = 0;
  std::uint32_t packets = 0;  // number of MTU packets

  // Sender.
  std::uint32_t next_psn = 0;       // next packet to (re)send
  std::uint32_t sent_high = 0;      // one past the highest PSN ever sent
  std::uint32_t acked_count = 0;
  std::uint64_t inflight_bytes = 0;
  Ps last_ack = 0;
  bool rto_armed = false;
  bool sender_done = false;
  std::vector<bool> acked;

  // Receiver.
  std::uint32_t expected_psn = 0;
  std::vector<bool> received;
  std::uint64_t delivered_bytes = 0;
  std::uint64_t ooo_packets = 0;
  std::uint64_t late_packets = 0;    // arrived after a higher PSN of the flow
  std::uint32_t highest_psn = 0;     // highest PSN received + 1
  std::uint32_t max_ooo_degree = 0;
  std::uint64_t duplicates = 0;
  Ps finish = kNever;
  bool done() const { return finish != kNever; }

  // Reorder transport (rearrange buffer with ACK/NACK). Source: cumulative ACK point, packets to resend
  // (NACKed), injection mode; receiver: what the application saw.
  std::uint32_t acked_upto = 0;           // every PSN below is acknowledged
  std::set<std::uint32_t> resend;         // NACKed PSNs, lowest first (the one the destination waits for)
  std::uint8_t injection_limited = 0;     // 1 after a rejection, until every rejected PSN is acknowledged
  std::uint32_t rejected_max = 0;         // highest rejected PSN + 1
  std::uint32_t li_credits = 0;           // Adap-LI: packets that may be injected while limited
  std::uint32_t app_next = 0;             // next PSN the application expects
  std::uint64_t app_out_of_order = 0;     // deliveries to the application out of sequence (must stay 0)
  std::uint32_t connection = 0xffffffffu;  // the destination NIC's rearrange connection
  std::uint64_t seq_base = 0;              // pair connections: the connection's sequence position of PSN 0
  std::uint32_t pair_prev = 0xffffffffu;   // pair connections: the pair's previous message (sent first)
  std::uint32_t gbn_nacked = 0xffffffffu;  // go-back-N receiver: the expected PSN already NACKed

  // Selective repeat (nic.transport = sr): the source's retransmission scoreboard, the destination's
  // placement scoreboard.
  std::unique_ptr<SrSender> sr_tx;
  std::unique_ptr<SackReceiver> sr_rx;

  // Congestion control (nic.cc = dctcp). Source: the window, the receiver's counts last seen, and the
  // acknowledged packets already fed to the window. Destination: the counts it echoes.
  std::unique_ptr<Dctcp> cc;
  std::uint32_t seen_rx_bytes = 0, seen_ce_bytes = 0;  // modulo 2^32, as echoed
  std::uint32_t cc_acked_seen = 0;
  std::uint64_t rx_bytes = 0, rx_ce_bytes = 0;  // data payload received (every arrival), and with CE
  std::uint64_t echoed_ce_bytes = 0;            // CE count at the previous echo (ECE when it moved)

  // Routing events reported per flow (path changes: a later packet left on a new path).
  std::uint64_t path_changes = 0;
  std::uint64_t flowcuts = 0;        // Flowcut: new flowcuts (entries) created for the flow at its ingress
  std::uint64_t drains = 0;
  Ps drain_ps = 0;                   // time the source held the flow paused for a drain
  Ps paused_since = kNever;          // source side: paused by FGFC or a NIC-only drain since then
  std::int32_t last_port = -1;       // port (or entropy) of the flow's previous flowcut / flowlet
  bool fc_draining = false;          // NIC-only: the source NIC drains this flow
  std::uint32_t hop_pauses = 0;      // source side: PAUSEs from the first switch not yet resumed
  Ps hop_paused_since = 0;
  Ps hop_paused_ps = 0;              // time the flow spent stopped by PAUSE frames
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
};

class FlowTable {
 public:
  std::vector<Flow>& flows() { return flows_; }
  const std::vector<Flow>& flows() const { return flows_; }
  Flow& operator[](std::uint32_t id) { return flows_[id]; }
  std::size_t size() const { return flows_.size(); }
  std::uint64_t completed() const { return completed_; }
  // Returns true when this was the last flow.
  bool mark_completed() { return ++completed_ == flows_.size(); }

 private:
  std::vector<Flow> flows_;
  std::uint64_t completed_ = 0;
};

}  // namespace netasic
