// The packet protocol: TLM-2.0 sockets of the fabric's links, switch ports and NIC ports.
//
// Packets travel under a protocol of their own, `packet_protocol_types`, not the base protocol: a socket
// of this protocol binds only to another one of it, so binding a base-protocol socket (a memory, a bus) to
// a packet port does not compile. The transaction is a generic payload that carries the packet in a
// `PacketExtension`; its data pointer and length keep the base protocol's meaning (a packet without byte
// contents has none: TLM_IGNORE_COMMAND, null data pointer, length 0). Links use blocking transport only.
//
// Time at the boundary (docs/tlm.md, "Time"): a delay passed to or received from a component outside the
// model is counted from sc_time_stamp(), as TLM-2.0 says; between the model's own ports it is counted from
// the fabric's time, Fabric::now(). PortTarget and ForeignTarget convert.
//
// Between the model's own ports the payload is not used at all: a sender hands the Packet* to its
// receiver through a DirectReceiver, a plain function call resolved once when bindings are complete.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <type_traits>

#include "tlm/model/fabric.h"

namespace netasic {

// The protocol traits of packet links (TLM-2.0 user manual: a non-base protocol gets its own traits class,
// so that sockets of different protocols cannot be bound to each other).
struct packet_protocol_types {
  using tlm_payload_type = tlm::tlm_generic_payload;
  using tlm_phase_type = tlm::tlm_phase;
};

using PacketFwIf = tlm::tlm_fw_transport_if<packet_protocol_types>;
using PacketBwIf = tlm::tlm_bw_transport_if<packet_protocol_types>;
using InitiatorSocket = tlm::tlm_initiator_socket<32, packet_protocol_types>;
using TargetSocket = tlm::tlm_target_socket<32, packet_protocol_types>;

// The packet a transaction of the packet protocol carries. The packet belongs to the fabric's pool
// (Fabric::pool()); a receiver outside the model that ends a packet's journey returns it there.
class PacketExtension : public tlm::tlm_extension<PacketExtension> {
 public:
  Packet* packet = nullptr;
  tlm::tlm_extension_base* clone() const override { return new PacketExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    packet = static_cast<const PacketExtension&>(other).packet;
  }
};

// The packet of a packet-protocol transaction, or null when it carries none.
inline Packet* packet_of(const tlm::tlm_generic_payload& payload) {
  const auto* e = payload.get_extension<PacketExtension>();
  return e ? e->packet : nullptr;
}

// A generic payload with its PacketExtension, for a sender that is reused packet after packet (b_transport
// is synchronous: nobody keeps the transaction after the call). The extension is owned here, not by the
// payload, and taken off again before the payload is destroyed.
class PacketPayload {
 public:
  PacketPayload() {
    payload_.set_extension(&ext_);
    payload_.set_command(tlm::TLM_IGNORE_COMMAND);
    payload_.set_data_ptr(nullptr);
    payload_.set_data_length(0);
    payload_.set_streaming_width(0);
    payload_.set_byte_enable_ptr(nullptr);
  }
  ~PacketPayload() { payload_.clear_extension(&ext_); }
  PacketPayload(const PacketPayload&) = delete;
  PacketPayload& operator=(const PacketPayload&) = delete;
  // The payload for packet `p`: address = destination host; a data packet with byte contents (a
  // host-interface message) is a write of its payload bytes, any other packet has none.
  tlm::tlm_generic_payload& with(Packet* p) {
    ext_.packet = p;
    payload_.set_address(p->dst_host);
    if (p->type == PacketType::data && p->bytes) {
      payload_.set_command(tlm::TLM_WRITE_COMMAND);
      payload_.set_data_ptr(p->bytes);
      payload_.set_data_length(p->payload_bytes);
      payload_.set_streaming_width(p->payload_bytes);
    } else if (payload_.get_data_ptr()) {
      payload_.set_command(tlm::TLM_IGNORE_COMMAND);
      payload_.set_data_ptr(nullptr);
      payload_.set_data_length(0);
      payload_.set_streaming_width(0);
    }
    payload_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    return payload_;
  }
  tlm::tlm_generic_payload& payload() { return payload_; }

 private:
  tlm::tlm_generic_payload payload_;
  PacketExtension ext_;
};

// Backward path of an initiator: links never use non-blocking transport or DMI.
class NoBackwardPath : public PacketBwIf {
 public:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    SC_REPORT_ERROR("netasic", "packet links use blocking transport only");
    return tlm::TLM_COMPLETED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// What a sender calls to hand a packet to the target its socket is bound to, with the delay from
// Fabric::now() at which its head arrives (or its transmission starts, for a link). Resolved once
// (resolve_receiver): for the model's own ports (PortTarget) a plain function call into the owner's
// receive(), with what that reads of the owner as a prefetch hint; for any other target, a ForeignTarget.
struct DirectReceiver {
  using Fn = void (*)(void* owner, std::uint16_t port, Packet* p, Ps delay);
  Fn fn = nullptr;
  void* owner = nullptr;
  const void* hint = nullptr;  // what the receiver's receive() reads (null: nothing to prefetch)
  std::uint16_t port = 0;
  void operator()(Packet* p, Ps delay) const { fn(owner, port, p, delay); }
};

// Implemented by targets that offer the direct form.
class DirectTarget {
 public:
  virtual ~DirectTarget() = default;
  virtual DirectReceiver direct() const = 0;
};

// A target outside the model (a user's block, a co-simulation wrapper): it gets b_transport with a
// generic payload carrying the packet, and the delay counted from sc_time_stamp().
class ForeignTarget {
 public:
  void bind(PacketFwIf* fw, Fabric* fabric) {
    fw_ = fw;
    fabric_ = fabric;
  }
  // Returns the response status the target set.
  tlm::tlm_response_status send(Packet* p, Ps delay) {
    tlm::tlm_generic_payload& payload = payload_.with(p);
    sc_core::sc_time d = fabric_->annotate(delay);
    fw_->b_transport(payload, d);
    return payload.get_response_status();
  }

 private:
  PacketFwIf* fw_ = nullptr;
  Fabric* fabric_ = nullptr;
  PacketPayload payload_;
};

// How to reach `fw`: directly when it is one of the model's ports, else through `foreign`.
inline DirectReceiver resolve_receiver(PacketFwIf* fw, ForeignTarget& foreign, Fabric& fabric) {
  if (const auto* d = dynamic_cast<const DirectTarget*>(fw)) return d->direct();
  foreign.bind(fw, &fabric);
  DirectReceiver r;
  r.fn = [](void* owner, std::uint16_t, Packet* p, Ps delay) { static_cast<ForeignTarget*>(owner)->send(p, delay); };
  r.owner = &foreign;
  return r;
}

// Forward path of a target port: the model's own senders call `Owner::receive(port, packet, delay)`
// directly (DirectReceiver); b_transport is the entry for everything else, a foreign initiator in its own
// SystemC process or a foreign component the model called: it brings the fabric to the caller's time
// (Fabric::enter), hands the packet on, and wakes the fabric for what that scheduled (Fabric::leave).
// `Owner` has `Fabric& fabric_`, `receive` (returning void, or false when the packet was dropped as
// corrupted), and `const void* rx_hint(std::uint16_t port) const` naming what its receive() reads (the first line).
template <class Owner>
class PortTarget : public PacketFwIf, public DirectTarget {
 public:
  PortTarget(Owner* owner, std::uint16_t port) : owner_(owner), port_(port) {}
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    Packet* p = packet_of(payload);
    if (!p) {
      payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      SC_REPORT_ERROR("netasic", "a packet-protocol transaction without a PacketExtension");
      return;
    }
    Fabric& fabric = owner_->fabric_;
    const Ps d = fabric.enter(delay);
    bool ok = true;
    if constexpr (std::is_same_v<decltype(owner_->receive(port_, p, d)), bool>) ok = owner_->receive(port_, p, d);
    else owner_->receive(port_, p, d);
    fabric.leave();
    payload.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_GENERIC_ERROR_RESPONSE);
  }
  DirectReceiver direct() const override {
    DirectReceiver r;
    r.fn = [](void* owner, std::uint16_t port, Packet* p, Ps delay) { static_cast<Owner*>(owner)->receive(port, p, delay); };
    r.owner = owner_;
    r.hint = owner_->rx_hint(port_);
    r.port = port_;
    return r;
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& payload, tlm::tlm_phase&, sc_core::sc_time&) override {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    SC_REPORT_ERROR("netasic", "packet links use blocking transport only");
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }

 private:
  Owner* owner_;
  std::uint16_t port_;
};

}  // namespace netasic
