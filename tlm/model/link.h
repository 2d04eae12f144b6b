// One direction of a cable: serialization at the (possibly degraded) rate, propagation delay, a per-packet
// wire overhead, and lossless credit-based flow control per virtual channel (or lossy, no credits).
//
// The sender hands a packet to `in` with `delay` = (transmission start - now); the link passes it on out of
// `out` with `delay` + propagation, i.e. the head-arrival offset at the receiver. Both sockets are of the
// packet protocol (tlm_ports.h); the model's own senders and receivers are called directly.
// Credits come back through return_credits(): the receiver frees buffer, the credit reaches the sender
// one propagation delay later, and the sender is told (LinkSender::on_credit).
#pragma once

#include <systemc>
#include <tlm>

#include <array>
#include <vector>

#include "tlm/common/rng.h"
#include "tlm/model/fabric.h"
#include "tlm/model/tlm_ports.h"

namespace netasic {

struct LinkConfig {
  double rate_gbps = 200;   // nominal rate
  double rate_scale = 1.0;  // degraded link: fraction of the nominal rate
  Ps prop_ps = 100 * kPsPerNs;
  std::uint32_t overhead_bytes = 20;  // per packet on the wire (preamble, inter-frame gap)
  bool lossless = true;
  std::vector<std::uint32_t> vc_credit_bytes;  // receiver buffer per VC (lossless)
  double error_rate = 0.0;                     // probability a packet is corrupted and dropped
};

// Sees every packet a link puts on the wire (packet timelines, pcap: tb/packet_trace.h). Off the fast
// path: a link with an observer takes the branch it takes for links with errors.
class WireObserver {
 public:
  virtual ~WireObserver() = default;
  // `p` starts on the wire of `link` at `start` for `ser`; `corrupted`: it will be dropped at the receiver.
  virtual void on_wire(const class Link& link, const Packet& p, Ps start, Ps ser, bool corrupted) = 0;
};

// A link the partition of a run cuts (its sender and receiver in different parts of the fabric): it hands
// over its frames and its receiver's credit returns instead of delivering them (docs/parallel.md). Each is
// due at or after the end of the window it was made in; the other part applies them when the window ends
// (Link::deliver_held, Link::absorb_credit).
class LinkCut {
 public:
  virtual ~LinkCut() = default;
  // `p` heads for the link's receiver, its head arriving at `head`; `ctx`: what the receiver's call schedules in.
  virtual void deliver(class Link& link, Packet* p, Ps head, const CausalContext& ctx) = 0;
  // The receiver freed `bytes` of VC `vc`; the credit reaches the sender at `at`.
  virtual void credit(class Link& link, Ps at, std::uint8_t vc, std::uint32_t bytes) = 0;
};

class LinkSender {
 public:
  virtual ~LinkSender() = default;
  virtual void on_credit(std::uint16_t port) = 0;
  // A credit arrival the sender waits for is coming up (steps as EventTarget::prefetch).
  virtual void prefetch_credit(std::uint16_t /*port*/, unsigned /*step*/) const {}
};

class Link : public sc_core::sc_module, public EventTarget {
  // The sender, first of the link's own members: beside the event target's vtable pointer, in the line the
  // event loop brings in two events ahead of a credit arrival, so the prefetch hook's read of it waits on
  // nothing (it sat in a line nothing else of the per-packet path touches).
  LinkSender* sender_ = nullptr;
  std::uint16_t sender_port_ = 0;

 public:
  TargetSocket in;
  InitiatorSocket out;

  Link(const sc_core::sc_module_name& name, Fabric& fabric, const LinkConfig& config, std::uint64_t seed,
       std::uint32_t index);

  void set_sender(LinkSender* sender, std::uint16_t port) {
    sender_ = sender;
    sender_port_ = port;
  }

  // Reports every packet put on the wire to `observer` (nullptr: none). Results do not change.
  void set_observer(WireObserver* observer) {
    observer_ = observer;
    refresh_slow();
  }
  // Cuts the link (nullptr: joins it again); the fabric must run in the causal order. Before the run.
  void set_cut(LinkCut* cut);
  LinkCut* cut() const { return cut_; }
  // The receiver's end of a cut link, when the window ends: delivers a frame deliver() held back.
  void deliver_held(Packet* p, Ps head, const CausalContext& ctx);
  // Takes in a credit return due at `at` (the receiver's own, or one a cut link's credit() held back until the
  // window ended, in the order they were made).
  void absorb_credit(Ps at, std::uint8_t vc, std::uint32_t bytes) {
    if (hot_.credit_tail - hot_.credit_head > hot_.credit_mask) grow_returns();  // full
    hot_.returns[hot_.credit_tail++ & hot_.credit_mask] = CreditReturn{at, bytes, vc};
    // Returns arrive in the order they are made: one already scheduled wake-up is never later than this one.
    if ((hot_.waiting_vcs >> vc & 1) && hot_.wake_at == kNever) {
      if (bytes >= hot_.deficit) schedule_wake(at);
      else hot_.deficit -= bytes;
    }
  }

  double rate_gbps() const { return rate_gbps_; }
  Ps prop_ps() const { return config_.prop_ps; }
  std::uint32_t overhead_bytes() const { return config_.overhead_bytes; }
  bool lossless() const { return config_.lossless; }
  Ps serialization(std::uint32_t size_bytes) const {
    return static_cast<Ps>(static_cast<double>(size_bytes + hot_.overhead_bytes) * hot_.ps_per_byte + 0.5);
  }
  // The same at the link's nominal rate (a degraded link's own rate aside).
  Ps nominal_serialization(std::uint32_t size_bytes) const {
    return static_cast<Ps>(static_cast<double>(size_bytes + hot_.overhead_bytes) * (8000.0 / config_.rate_gbps) + 0.5);
  }
  // When the transmitter is next free (end of the current serialization).
  Ps free_at() const { return hot_.busy_until; }
  // Whether `bytes` of credit are available on `vc` now. When not, the sender is told (on_credit) when the
  // credit returns in flight first bring some VC it waits on up to the least it asked for: credits in flight
  // cost no event unless a sender waits for them, and a return too small for every waiting head wakes no one.
  bool has_credit(std::uint8_t vc, std::uint32_t bytes) {
    if (!hot_.lossless) return true;
    absorb_due_credits();
    if (hot_.credits[vc] >= static_cast<std::int64_t>(bytes)) return true;
    wait_for_credit(vc, bytes);
    return false;
  }
  // The same, right after has_credit at the same time with no credit return in between: nothing is due that
  // has_credit did not absorb (the arbiter's check of a head after its check of the VC).
  bool has_absorbed_credit(std::uint8_t vc, std::uint32_t bytes) {
    if (!hot_.lossless || hot_.credits[vc] >= static_cast<std::int64_t>(bytes)) return true;
    wait_for_credit(vc, bytes);
    return false;
  }
  std::int64_t credits(std::uint8_t vc) {
    absorb_due_credits();
    return hot_.credits[vc];
  }
  std::size_t vcs() const { return vcs_; }
  // The sender commits buffer space downstream (at grant in a switch, at send in a NIC).
  void take_credits(std::uint8_t vc, std::uint32_t bytes) {
    if (!hot_.lossless) return;
    hot_.credits[vc] -= bytes;
    if (hot_.credits[vc] < 0) credit_underflow(vc);
  }

  // Receiver side: `bytes` of VC `vc` left the receive buffer now. Inline, as transmit() is: both run once per
  // packet-hop, and a call each cost its prologue and epilogue (docs/performance.md, "The hop inline").
  void return_credits(std::uint8_t vc, std::uint32_t bytes) {
    if (!hot_.lossless) return;
    const Ps at = hot_.fabric->now() + hot_.prop_ps;
    if (__builtin_expect(hot_.cut, 0)) return cut_->credit(*this, at, vc, bytes);
    absorb_credit(at, vc, bytes);
  }

  // Statistics.
  std::uint64_t packets_sent() const { return hot_.packets; }
  std::uint64_t wire_bytes_sent() const { return hot_.wire_bytes; }
  Ps busy_time() const { return hot_.busy_time; }
  std::uint64_t corrupted() const { return corrupted_; }
  std::uint32_t index() const { return index_; }
  const LinkConfig& config() const { return config_; }

  void on_event(std::uint32_t kind, std::uint64_t data) override;
  // Bindings are complete: resolves what `out` is bound to (DirectReceiver), once, off the packet path.
  void end_of_elaboration() override;
  void prefetch(std::uint32_t, std::uint64_t, unsigned step) const override {
    if (step == 1) prefetch_state();
    // A credit arrival wakes the sender: what its retry touches.
    if (sender_) sender_->prefetch_credit(sender_port_, step);
  }
  // Prefetches the per-packet state (for a sender about to use this link).
  void prefetch_state() const {
    __builtin_prefetch(&hot_);
    prefetch_lines_after_first();
  }
  // The same for a sender about to use the link (a grant at a switch arrival, about one event later), with
  // the first line read instead of prefetched: at 8,192 hosts the grant's credit check still waited on that
  // line after a prefetch of it (9% of the run's samples) and not after a read, and the run took 12% less
  // time (docs/performance.md). Results do not depend on it.
  void load_state() const {
    read_line(&hot_);
    prefetch_lines_after_first();
  }
  // Prefetches what the receiver's receive() reads (once prefetch_state's lines are in).
  void prefetch_receiver() const {
    if (hot_.rx.hint) __builtin_prefetch(hot_.rx.hint);
  }
  // The first line alone (what return_credits touches), and then (once it is in) the ring slot the next
  // credit return will write.
  void prefetch_hot() const {
    __builtin_prefetch(&hot_);
    __builtin_prefetch(&hot_.first_returns);
  }
  void prefetch_return_slot() const {
    __builtin_prefetch(&hot_.returns[hot_.credit_tail & hot_.credit_mask], 1);
  }
  // What the receiver's receive() reads (null for a target that is not one of the model's ports).
  const void* receiver_hint() const { return hot_.rx.hint; }
  // The interface `in` is bound to: a sender whose socket reaches exactly this calls transmit() directly.
  const PacketFwIf* target_if() const { return &fw_; }
  // The sender's call, with the serialization time it has worked out for the packet (serialization()). False
  // when the packet was corrupted (and dropped).
  bool transmit(Packet* p, Ps delay, Ps ser) {
    const Ps start = hot_.fabric->now() + delay;
    if (__builtin_expect(start < hot_.busy_until, 0)) transmission_overlaps();
    hot_.busy_until = start + ser;
    hot_.busy_time += ser;
    ++hot_.packets;
    hot_.wire_bytes += p->size_bytes + hot_.overhead_bytes;
    p->ser_ps = ser;
    ++p->hops;
    if (hot_.slow) return slow_receive(p, start, ser, delay);
    hot_.rx(p, delay + hot_.prop_ps);
    return true;
  }
  const void* rx_hint(std::uint16_t) const { return &hot_; }

 private:
  friend class PortTarget<Link>;
  // False when the packet was corrupted (and dropped).
  bool receive(std::uint16_t, Packet* p, Ps delay);
  [[noreturn]] void transmission_overlaps() const;
  PortTarget<Link> fw_{this, 0};
  NoBackwardPath bw_;
  ForeignTarget foreign_;  // what `out` is bound to, when that is not one of the model's ports
  [[noreturn]] void credit_underflow(std::uint8_t vc) const;
  void absorb_due_credits() {
    const Ps now = hot_.fabric->now();
    while (hot_.credit_head != hot_.credit_tail && hot_.returns[hot_.credit_head & hot_.credit_mask].at <= now) {
      const CreditReturn& r = hot_.returns[hot_.credit_head & hot_.credit_mask];
      hot_.credits[r.vc] += r.bytes;
      if (hot_.credits[r.vc] > hot_.credit_limit[r.vc]) credit_overflow(r.vc);
      ++hot_.credit_head;
    }
    // An emptied ring starts again at its first entry, so a link whose returns are absorbed as they come
    // keeps to one cache line of its ring.
    if (hot_.credit_head == hot_.credit_tail && hot_.credit_head != 0) hot_.credit_head = hot_.credit_tail = 0;
  }
  // The per-packet state's lines after the first (credits, statistics, the credit ring's first storage).
  void prefetch_lines_after_first() const {
    __builtin_prefetch(&hot_.credits);
    __builtin_prefetch(&hot_.packets);
    __builtin_prefetch(&hot_.first_returns);
  }
  // The sender found less than `bytes` on `vc` (after absorbing what was due). It is woken when the returns in
  // flight bring the VC up to that; when they do not, once further returns on a VC it waits on add up to the
  // least it still lacks on any of them (early when another VC lacked less, never late). Most checks that
  // fail find no return in flight (the receiver is itself held up): those only note what is lacking.
  void wait_for_credit(std::uint8_t vc, std::uint32_t bytes) {
    if (hot_.credit_head != hot_.credit_tail) return wait_for_returns(vc, bytes);
    lacking(vc, static_cast<std::uint32_t>(static_cast<std::int64_t>(bytes) - hot_.credits[vc]));
  }
  void lacking(std::uint8_t vc, std::uint32_t bytes) {
    if (!hot_.waiting_vcs || bytes < hot_.deficit) hot_.deficit = bytes;
    hot_.waiting_vcs |= static_cast<std::uint8_t>(1u << vc);
  }
  void wait_for_returns(std::uint8_t vc, std::uint32_t bytes);
  void schedule_wake(Ps at);
  void grow_returns();
  void schedule_credit_arrival(Ps at);
  void refresh_slow() { hot_.slow = observer_ != nullptr || config_.error_rate > 0 || fabric_.causal() || cut_ != nullptr; }
  [[noreturn]] void credit_overflow(std::uint8_t vc) const;

  // Credit returns on their way back to the sender, oldest first (the delay is the same for all).
  struct CreditReturn {
    Ps at;
    std::uint32_t bytes;
    std::uint8_t vc;
  };
  static constexpr std::size_t kMaxVcs = 5;
  // What the per-packet path reads and writes, together in three cache lines (the sc_module and its sockets
  // around it are large): the transmitter and the credit ring; the credits and their limits; the statistics.
  struct alignas(64) Hot {
    Fabric* fabric = nullptr;
    Ps busy_until = 0;
    double ps_per_byte = 0;
    Ps prop_ps = 0;
    CreditReturn* returns = nullptr;  // ring (first_returns, then returns_), power-of-two size
    std::uint32_t credit_mask = 0;
    std::uint32_t credit_head = 0, credit_tail = 0;  // counts modulo 2^32 (the ring is far smaller)
    std::uint32_t overhead_bytes = 0;
    bool lossless = true;
    bool slow = false;  // error_rate > 0 or an observer: the per-packet path takes the slow branch
    // The VCs a sender found short of credit, beyond what is in flight, since it was last woken (bit per VC;
    // 0: none), and how many bytes of returns on them still to come cover the least of those needs (deficit,
    // in the next line).
    std::uint8_t waiting_vcs = 0;
    bool cut = false;  // credit returns go to the LinkCut
    alignas(64) std::array<std::int64_t, kMaxVcs> credits{};
    std::array<std::uint32_t, kMaxVcs> credit_limit{};
    std::uint32_t deficit = 0;
    alignas(64) std::uint64_t packets = 0;
    std::uint64_t wire_bytes = 0;
    Ps busy_time = 0;
    DirectReceiver rx;            // what `out` is bound to (resolved at the end of elaboration)
    // When the sender's wake-up is due (kNever: none scheduled). A wake-up moved earlier leaves its first event
    // in the queue, which finds a different time here and does nothing.
    Ps wake_at = kNever;
    // The ring's first storage: returns come back about one propagation delay after they are made and an
    // emptied ring restarts at its first entry, so most links never need more than these four, and the
    // ring is then a line of the link's own instead of one elsewhere (grow_returns moves it to returns_).
    alignas(64) std::array<CreditReturn, 4> first_returns{};
  };
  static_assert(sizeof(Hot) == 256, "four cache lines");
  Hot hot_;
  std::vector<CreditReturn> returns_;

  Fabric& fabric_;
  LinkConfig config_;
  double rate_gbps_;
  std::size_t vcs_ = 0;
  Rng rng_;
  std::uint32_t index_;
  std::uint64_t corrupted_ = 0;
  WireObserver* observer_ = nullptr;
  LinkCut* cut_ = nullptr;
  bool slow_receive(Packet* p, Ps start, Ps ser, Ps delay);
};

}  // namespace netasic
