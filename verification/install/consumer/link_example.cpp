// A sender in its own thread and a receiver of one's own on the two ends of a netasic link (docs/tlm.md,
// "Plugging in your own component"). The packet leaves at 1 us; the link's propagation is 100 ns.
#include <systemc>
#include <tlm>

#include <iostream>

#include "tlm/model/link.h"

struct Sender : sc_core::sc_module {
  netasic::InitiatorSocket out{"out"};
  netasic::NoBackwardPath bw;
  netasic::Packet packet;
  SC_HAS_PROCESS(Sender);
  explicit Sender(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
    out.bind(bw);
    SC_THREAD(run);
  }
  void run() {
    netasic::PacketPayload payload;
    wait(1, sc_core::SC_US);
    packet.size_bytes = 1000;  // header + payload
    packet.dst_host = 1;
    packet.vc = 1;  // a data VC
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;  // start the transmission now
    out->b_transport(payload.with(&packet), delay);
  }
};

struct Receiver : sc_core::sc_module, netasic::PacketFwIf {
  netasic::TargetSocket in{"in"};
  sc_core::sc_time head;
  explicit Receiver(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { in.bind(*this); }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) override {
    const netasic::Packet* p = netasic::packet_of(t);
    head = sc_core::sc_time_stamp() + delay;  // the head arrives then; the tail p->ser_ps later
    std::cout << p->size_bytes << " B at " << head << "\n";
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

int sc_main(int, char**) {
  netasic::Fabric fabric("fabric", 0);  // quantum 0: lock step
  netasic::LinkConfig lc;               // 200 Gb/s, 100 ns, 20 B overhead
  lc.vc_credit_bytes = {65536, 65536};
  netasic::Link link("link", fabric, lc, /*seed*/ 1, /*index*/ 0);
  Sender s("s");
  Receiver r("r");
  s.out.bind(link.in);
  link.out.bind(r.in);
  sc_core::sc_start(10, sc_core::SC_US);  // prints: 1000 B at 1100 ns
  return r.head == sc_core::sc_time(1100, sc_core::SC_NS) ? 0 : 1;
}
