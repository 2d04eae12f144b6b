#include "tlm/model/packet_ring.h"

#include <stdexcept>

namespace netasic {

void PacketRing::grow() {
  // Rare: a queue grows only until its storage holds the most packets it ever held at once.
  if (cap_ == limit_) throw std::logic_error("PacketRing: a push onto a full queue (the caller checks full())");
  const std::uint32_t cap = cap_ > limit_ / 2 ? limit_ : cap_ * 2;
  std::unique_ptr<Packet*[]> bigger(new Packet*[cap]);
  for (std::uint32_t k = 0, j = head_; k < count_; ++k) {
    bigger[k] = slots_[j];
    if (++j == cap_) j = 0;
  }
  slots_.swap(bigger);
  head_ = 0;
  cap_ = cap;
}

}  // namespace netasic
