#include "tlm/model/packet_ring.h"

#include <stdexcept>

namespace netasic {

void PacketRing::grow() {
  // Rare: a queue grows only until its storage holds the most packets it ever held at once.
  if (cap_ == limit_) throw std::logic_error("PacketRing: a push onto a full queue (the caller checks full())");
  const std::uint32_t cap = grown_ring_size(cap_, limit_);
  slots_ = regrow_ring(slots_.get(), head_, count_, cap_, cap);
  head_ = 0;
  cap_ = cap;
}

}  // namespace netasic
