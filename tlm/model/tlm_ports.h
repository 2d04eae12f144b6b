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

// What a sender calls to hand a packet to the target its socket is bound to. Resolved once, from the
// bound interface (resolve_receiver): for the model's own ports (PortTarget) a plain function call into
// the owner's receive(), with the owner's per-port state as a prefetch hint; for any other TLM-2.0
// target (a user's block, a co-simulation wrapper), its b_transport through the interface. The direct
// form skips the virtual call, whose interface object sits in a cache line of its own.
struct DirectReceiver {
  using Fn = void (*)(void* owner, std::uint16_t port, tlm::tlm_generic_payload&, sc_core::sc_time&);
  Fn fn = nullptr;
  void* owner = nullptr;
  const void* hint = nullptr;  // the receiver's per-port state (null: nothing to prefetch)
  std::uint16_t port = 0;
  void operator()(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) const { fn(owner, port, payload, delay); }
};

// Implemented by targets that offer the direct form.
class DirectTarget {
 public:
  virtual ~DirectTarget() = default;
  virtual DirectReceiver direct() const = 0;
};

inline DirectReceiver resolve_receiver(tlm::tlm_fw_transport_if<>* fw) {
  if (const auto* d = dynamic_cast<const DirectTarget*>(fw)) return d->direct();
  DirectReceiver r;
  r.fn = [](void* owner, std::uint16_t, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
    static_cast<tlm::tlm_fw_transport_if<>*>(owner)->b_transport(payload, delay);
  };
  r.owner = fw;
  return r;
}

// Forward path of a target port: hands b_transport to `Owner::receive(port, payload, delay)`. The owner
// names its per-port state for prefetching with `const void* rx_hint(std::uint16_t port) const`.
template <class Owner>
class PortTarget : public tlm::tlm_fw_transport_if<>, public DirectTarget {
 public:
  PortTarget(Owner* owner, std::uint16_t port) : owner_(owner), port_(port) {}
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    owner_->receive(port_, payload, delay);
  }
  DirectReceiver direct() const override {
    DirectReceiver r;
    r.fn = [](void* owner, std::uint16_t port, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
      static_cast<Owner*>(owner)->receive(port, payload, delay);
    };
    r.owner = owner_;
    r.hint = owner_->rx_hint(port_);
    r.port = port_;
    return r;
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
