// PFC (IEEE 802.1Qbb) at the egress queues: the scheme switch.flow_control = pfc (see egress_fc.h).
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/model/egress_fc.h"

namespace netasic {

// Per-priority pause of a whole upstream port: each data packet counts against its (input port, class);
// above XOFF the input is sent a PFC PAUSE for that class, at or below XON a RESUME. Upstream, a PFC PAUSE
// stops every queue of the class's group on the port it arrived on. Data queues are chosen by flow hash.
class PfcFc final : public EgressFc {
 public:
  PfcFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng);

 private:
  void arrived(const Packet* p, std::vector<FcFrame>& out) override;
  std::uint32_t admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) override;
  void pfc_frame(std::uint16_t o, std::uint32_t group, bool pause) override;

  // Bytes held per (input port, class) and whether that input has been paused.
  std::vector<std::uint64_t> ingress_bytes_;
  std::vector<std::uint8_t> ingress_paused_;
};

}  // namespace netasic
