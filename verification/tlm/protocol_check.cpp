// Compiled twice by CTest (verification/tlm/CMakeLists.txt): as it is, it must compile (the control: a
// user's packet-protocol socket binds to a link, a tlm_utils simple target socket with the packet traits
// to a link's output, a base-protocol initiator to a base-protocol target); with
// NETASIC_BIND_BASE_TO_PACKET it binds a base-protocol initiator socket to a link's packet target socket,
// which must not compile.
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "tlm/model/link.h"

namespace user_model {

struct UserBlock : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  tlm::tlm_initiator_socket<> memory_port{"memory_port"};          // the base protocol
  netasic::InitiatorSocket packet_port{"packet_port"};              // the packet protocol
  netasic::NoBackwardPath packet_bw;
  explicit UserBlock(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
    memory_port.bind(*this);
    packet_port.bind(packet_bw);
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

struct Memory : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<> socket{"socket"};
  explicit Memory(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { socket.bind(*this); }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time&) override { t.set_response_status(tlm::TLM_OK_RESPONSE); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

// A convenience socket of tlm_utils with the packet traits, as a receiver at the end of a link.
struct Probe : sc_core::sc_module {
  tlm_utils::simple_target_socket<Probe, 32, netasic::packet_protocol_types> socket{"socket"};
  explicit Probe(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
    socket.register_b_transport(this, &Probe::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time&) { t.set_response_status(tlm::TLM_OK_RESPONSE); }
};

}  // namespace user_model

void bind_user_block(user_model::UserBlock& user, user_model::Memory& memory, user_model::Probe& probe,
                     netasic::Link& link);
void bind_user_block(user_model::UserBlock& user, user_model::Memory& memory, user_model::Probe& probe,
                     netasic::Link& link) {
  user.memory_port.bind(memory.socket);
  link.out.bind(probe.socket);
#ifdef NETASIC_BIND_BASE_TO_PACKET
  user.memory_port.bind(link.in);  // a base-protocol socket on a packet port: rejected by the compiler
#else
  user.packet_port.bind(link.in);
#endif
}
