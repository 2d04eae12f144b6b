// Packet timelines and captures of a run (`trace.enabled`): every packet the selected ports put on the
// wire, and every packet of the selected flows, written as trace.json (Chrome trace-event format, which
// Perfetto's UI and chrome://tracing open) and packets.pcap (nanosecond pcap, LINKTYPE_ETHERNET, read by
// tcpdump and tshark). docs/outputs.md describes both files and the frame encoding.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tlm/common/flow_key.h"
#include "tlm/model/flow.h"
#include "tlm/model/link.h"
#include "tlm/model/packet.h"

namespace netasic {

class Simulation;
class Scenario;
class Switch;

class PacketTrace : public WireObserver, public FlowEventObserver {
 public:
  // Reads the trace.* keys and attaches to the links of `sim` that the selection can touch.
  PacketTrace(const Scenario& s, Simulation& sim);

  void on_wire(const Link& link, const Packet& p, Ps start, Ps ser, bool corrupted) override;
  // Source holds and flowcuts of the selected flows (FlowEventObserver).
  void on_hold(std::uint32_t flow, FlowHold why, Ps at) override;
  void on_release(std::uint32_t flow, bool hop, Ps at) override;
  void on_flowcut(std::uint32_t flow, std::uint32_t flowcut, Ps at) override;

  void write_json(std::ostream& out) const;
  void write_pcap(std::ostream& out) const;
  std::uint64_t recorded() const { return records_.size(); }
  std::uint64_t over_cap() const { return over_cap_; }
  std::uint64_t max_packets() const { return max_packets_; }

 private:
  struct LinkInfo {
    std::string name;  // "sw3 p5 -> host7"
    std::uint32_t from_node = 0, to_node = 0;
    const Switch* sender = nullptr;  // the switch that transmits on it, if any
    std::uint16_t port = 0;          // its port there
    bool from_host = false, to_host = false;
    bool selected = false;  // a selected switch transmits on it
    Ps prop = 0;
  };
  struct Record {
    Ps start, ser;
    std::uint64_t queue_bytes;  // the sending switch port's backlog as the packet left (0 from a host)
    std::uint32_t link, flow, psn, ack_psn, size;
    FlowKey key;
    PacketType type;
    std::uint8_t vc, tclass, ect, ce, retransmit, hops;
    bool corrupted, flow_selected, port_selected;
  };
  // A hold (a slice from `at` to `end`; kNever while it lasts) or a flowcut (an instant; `n` its number).
  struct Mark {
    Ps at, end;
    std::uint32_t flow, n;
    FlowHold why;
    bool flowcut, hop;
  };
  bool in_window(Ps at) const { return at >= start_ && (end_ == 0 || at < end_); }
  bool take_one();  // false (and counted) past trace.max_packets
  bool flow_selected(std::uint32_t flow) const {
    return all_flows_ || (flow < flows_.size() && flows_[flow]);
  }
  void write_port_events(std::ostream& out, bool& first) const;
  void write_flow_events(std::ostream& out, bool& first) const;

  std::vector<LinkInfo> links_;
  std::vector<char> flows_;  // by flow id
  bool all_flows_ = false;
  std::uint32_t flow_count_ = 0;
  Ps start_ = 0, end_ = 0;  // window; end 0 = none
  std::uint64_t max_packets_ = 0;
  std::uint64_t over_cap_ = 0;
  std::vector<Record> records_;
  std::vector<Mark> marks_;
  std::vector<std::array<std::uint32_t, 2>> open_;  // per flow: the open source hold's and hop hold's mark + 1
  const Simulation& sim_;
};

}  // namespace netasic
