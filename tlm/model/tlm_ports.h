// Minimal TLM-2.0 socket ends for the fabric's links.
//
// Links carry packets with blocking transport only (b_transport with the delay argument), so the
// convenience sockets' machinery for converting between blocking and non-blocking calls is dead weight
// on the hottest path of the model. Plain tlm_initiator_socket / tlm_target_socket bound to these small
// interface objects make a socket call one virtual call, and still let any TLM-2.0 component (an RTL
// co-simulation wrapper, a user's own block) sit on either end of a link.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>

namespace netasic {

// Backward path of an initiator: links never use non-blocking transport or DMI.
class NoBackwardPath : public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR("netasic", "links use blocking transport only");
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// Forward path of a target port: hands b_transport to `Owner::receive(port, payload, delay)`.
template <class Owner>
class PortTarget : public tlm::tlm_fw_transport_if<> {
 public:
  PortTarget(Owner* owner, std::uint16_t port) : owner_(owner), port_(port) {}
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    owner_->receive(port_, payload, delay);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR("netasic", "links use blocking transport only");
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

 private:
  Owner* owner_;
  std::uint16_t port_;
};

using InitiatorSocket = tlm::tlm_initiator_socket<>;
using TargetSocket = tlm::tlm_target_socket<>;

}  // namespace netasic
