// A transport driven through its interface without a NIC or a running kernel (the unit tests of
// tlm/model/transport.h): data packets into the receiver side, ACK/NACKs into the sender side, and what it
// asks to send. Timers the transport schedules are never run here.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

// One NIC's worth of context around a transport: flows, counters, the control queue, the active list.
class TransportHarness {
 public:
  explicit TransportHarness(NicConfig config)
      : fabric_(fresh_name().c_str(), 0),
        config_(config),
        control_(64),
        ctx_{fabric_, flows_, config_, counters_, control_, active_, "test", nullptr, 0},
        transport_(make_transport(ctx_)) {}

  // A flow of `packets` full packets from host 0 to host 1, registered at both ends of this transport.
  Flow& add_flow(std::uint32_t packets) {
    Flow f;
    f.id = static_cast<std::uint32_t>(flows_.size());
    f.src = 0;
    f.dst = 1;
    f.size_bytes = std::uint64_t{packets} * config_.mtu_bytes;
    f.packets = packets;
    flows_.flows().push_back(f);
    Flow& g = flows_.flows().back();
    g.tx_slot = tx_slots_++;
    g.rx_slot = rx_slots_++;
    transport_->add_flow(g);
    transport_->add_incoming_flow(g);
    return g;
  }
  void finish_setup() { transport_->finish_setup(); }

  // The sender sends what the transport chooses, as the NIC would.
  SendChoice send(Flow& f) {
    const SendChoice c = transport_->next(f);
    if (c.kind == SendChoice::ready) transport_->on_sent(f, c);
    return c;
  }
  void data(Flow& f, std::uint32_t psn, bool retransmit = false) {
    Packet* p = fabric_.pool().get();
    p->type = PacketType::data;
    p->flow = f.id;
    p->src_host = f.src;
    p->dst_host = f.dst;
    p->psn = psn;
    p->payload_bytes = ctx_.payload_of(f, psn);
    p->size_bytes = p->payload_bytes + config_.header_bytes;
    p->retransmit = retransmit ? 1 : 0;
    p->t_sent = 1234;
    transport_->receive_data(f, p);
  }
  // The oldest control packet the receiver queued (the harness owns it until ack() or drop()).
  Packet* pop_control() {
    if (control_.empty()) return nullptr;
    Packet* a = control_.front();
    control_.pop_front();
    return a;
  }
  void ack(Flow& f, Packet* a) {
    transport_->receive_ack(f, a);
    fabric_.pool().put(a);
  }
  // A control packet of the flow as its destination would send it.
  Packet* control(const Flow& f, PacketType type, std::uint32_t sn) {
    Packet* a = fabric_.pool().get();
    a->type = type;
    a->flow = f.id;
    a->ack_psn = sn;
    a->size_bytes = config_.ack_bytes;
    return a;
  }
  void drop_control() {
    while (Packet* a = pop_control()) fabric_.pool().put(a);
  }
  Flow& flow(std::uint32_t id) { return flows_[id]; }  // add_flow may move the flows: look them up again
  Transport& transport() { return *transport_; }
  NicCounters& counters() { return counters_; }
  std::vector<std::uint32_t>& active() { return active_; }

 private:
  static std::string fresh_name() {
    static int n = 0;
    return "fabric_" + std::to_string(n++);
  }
  Fabric fabric_;
  FlowTable flows_;
  NicConfig config_;
  NicCounters counters_;
  PacketRing control_;
  std::vector<std::uint32_t> active_;
  NicContext ctx_;
  std::unique_ptr<Transport> transport_;
  std::uint32_t tx_slots_ = 0, rx_slots_ = 0;
};

}  // namespace netasic
