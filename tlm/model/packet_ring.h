// A FIFO of packet pointers holding at most `limit` packets, whose storage grows with what it holds: it
// starts at kFirst entries and doubles, up to the limit, when a push finds it full. An emptied ring starts
// again at its first entry, so a queue that drains now and then keeps to its first cache line instead of
// walking all of its slots. The NICs' control queues (nic.control_queue_packets, 1,024) and the switches'
// queues of the frames they generate use it: sized for the limit up front, the NICs' alone were 8 KiB a
// host, 512 MiB of a 65,536-host fabric (docs/performance.md, "Control queues that grow on demand").
#pragma once

#include <cstdint>
#include <memory>

namespace netasic {

struct Packet;

// The growth both kinds of growing ring share (PacketRing, the switch's egress rings): twice the entries, at
// most `limit`; and the entries of a full ring moved into the new storage oldest first, so that its head is 0.
inline std::uint32_t grown_ring_size(std::uint32_t cap, std::uint32_t limit) {
  return cap > limit / 2 ? limit : cap * 2;
}
template <class T>
std::unique_ptr<T[]> regrow_ring(const T* from, std::uint32_t head, std::uint32_t count, std::uint32_t cap,
                                 std::uint32_t new_cap) {
  std::unique_ptr<T[]> to(new T[new_cap]);
  for (std::uint32_t k = 0, j = head; k < count; ++k) {
    to[k] = from[j];
    if (++j == cap) j = 0;
  }
  return to;
}

class PacketRing {
 public:
  static constexpr std::uint32_t kFirst = 8;  // entries: one cache line

  explicit PacketRing(std::uint32_t limit)
      : slots_(new Packet*[limit < kFirst ? limit : kFirst]), cap_(limit < kFirst ? limit : kFirst), limit_(limit) {}

  bool empty() const { return count_ == 0; }
  bool full() const { return count_ == limit_; }
  std::uint32_t size() const { return count_; }
  std::uint32_t capacity() const { return cap_; }  // what the storage holds now; at most limit()
  std::uint32_t limit() const { return limit_; }
  Packet* front() const { return slots_[head_]; }
  // A queue that must not drop (the switch's RESUME frames) raises its limit instead when full.
  void raise_limit(std::uint32_t limit) {
    if (limit > limit_) limit_ = limit;
  }

  // Callers check full() first (a full queue counts the packet it cannot take, or holds it back).
  void push_back(Packet* p) {
    if (__builtin_expect(count_ == cap_, 0)) grow();
    std::uint32_t k = head_ + count_;
    if (k >= cap_) k -= cap_;
    slots_[k] = p;
    ++count_;
  }
  void pop_front() {
    if (--count_ == 0) head_ = 0;
    else if (++head_ == cap_) head_ = 0;
  }

 private:
  void grow();  // twice the storage, at most limit_; a push onto a full queue is a logic error

  std::unique_ptr<Packet*[]> slots_;
  std::uint32_t head_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t cap_;
  std::uint32_t limit_;
};

}  // namespace netasic
