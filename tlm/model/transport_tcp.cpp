// A loss-driven TCP-like transport (nic.transport = tcp): the window and its reactions are the Reno /
// NewReno block (tlm/blocks/tcp_reno.h); this class is the sender and receiver around it.
//   Receiver: keeps packets that arrive above a hole (unbounded, as a TCP receive queue within the
//   window) and hands the application the bytes in order. Cumulative ACKs carry the next PSN expected.
//   An in-order packet is acknowledged with every nic.tcp.ack_every-th one or when nic.tcp.delayed_ack_us
//   has passed since the first unacknowledged one; a packet out of order, a duplicate, or one that fills a
//   hole is acknowledged at once (RFC 5681 section 4.2). An ACK echoes the send time of the earliest packet
//   it acknowledges (RFC 7323 timestamps), so the sender measures the RTT on every ACK with new data.
//   Sender: a window of packets past the cumulative point; the first unacknowledged packet resent on the
//   dupthresh-th duplicate ACK and on each partial ACK in recovery; its own retransmission timer (RFC 6298:
//   armed while data is outstanding, restarted by new data acknowledged), at whose expiry the flow goes back
//   to its first unacknowledged packet in slow start from one packet. Segmentation offload: a flow that
//   starts a burst sends up to nic.tcp.tso_bytes back to back, the NIC's other flows waiting, unless its
//   window closes first. No pacing.
// With nic.tcp.sack (RFC 2018, RFC 6675), off by default, and otherwise not touched:
//   Receiver: keeps the out-of-order ranges it holds above the cumulative point and the order in which they
//   last changed; every ACK carries up to nic.tcp.sack_blocks of them, the block holding the packet that
//   triggered it first, then the other most recently changed ones (2 + 8 bytes per block on the ACK).
//   Sender: a scoreboard of the packets SACKed above the cumulative point. A packet not SACKed is lost
//   (IsLost) when dupthresh packets above it are SACKed. An ACK that SACKs new data counts as a duplicate;
//   dupthresh of them, or the first unacknowledged packet being lost, start a recovery (RecoveryPoint = the
//   highest PSN sent, ssthresh = cwnd = half the flight) and resend the first unacknowledged packet. In
//   recovery the sender sends while cwnd - pipe >= 1 MSS, where pipe counts the packets neither SACKed nor
//   lost, plus those retransmitted in this recovery; what it sends is NextSeg: the lowest lost packet not
//   yet resent, else new data, else the lowest unSACKed packet below the highest SACKed one not yet
//   resent. Recovery ends when the cumulative point reaches RecoveryPoint. A timeout ends recovery, sets
//   RecoveryPoint to the highest PSN sent (no recovery before it is acknowledged), forgets the SACKed
//   packets and goes back to the cumulative point in slow start; packets SACKed again after it are skipped.
// The transport's timers are its own events (one live event per flow and kind; a later one supersedes it).
// With nic.cc = dctcp the DCTCP window also bounds the flow: the TCP window is clamped to it after every
// ACK, so an ECN mark cuts as DCTCP does and a loss halves as TCP does.
#include <fmt/format.h>

#include <algorithm>

#include "tlm/blocks/tcp_reno.h"
#include "tlm/common/error.h"
#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

constexpr std::uint32_t kNoFlow = 0xffffffffu;

class TcpTransport final : public Transport, public EventTarget {
 public:
  explicit TcpTransport(NicContext& ctx) : Transport(ctx, false) {
    if (ctx.config.cc != CongestionControlKind::none && ctx.config.cc != CongestionControlKind::dctcp)
      throw InputError("nic.transport = tcp works with nic.cc = none (loss only) or dctcp (loss and ECN); a "
                       "rate-based controller (dcqcn) would pace what the TCP window clocks");
  }

  void add_flow(Flow& f) override {
    tx_.emplace_back(ctx_.config.tcp_config, f.id);
    if (sack_) tx_.back().sb = std::make_unique<Scoreboard>();
    if (cc_) cc_->add_sender(f);
  }
  void add_incoming_flow(Flow& f) override {
    rx_.emplace_back();
    if (sack_) rx_.back().ooo = std::make_unique<OooRanges>();
    if (cc_) cc_->add_receiver(f);
  }

  SendChoice next(Flow& f) override;
  void on_sent(Flow& f, const SendChoice& c) override;
  std::string sender_detail(const Flow& f) const override {
    const Sender& s = tx_[f.tx_slot];
    return fmt::format(" (in order below {}), cwnd {} B, ssthresh {} B{}", s.reno.una(), s.reno.cwnd(),
                       s.reno.ssthresh(), s.reno.in_recovery() ? ", in recovery" : "");
  }
  void report(Report& r) const override;
  void on_event(std::uint32_t kind, std::uint64_t data) override;
  const TcpReno* tcp_window(const Flow& f) const override {
    return f.tx_slot < tx_.size() ? &tx_[f.tx_slot].reno : nullptr;
  }

 protected:
  bool on_data(Flow& f, Packet* p) override;
  std::uint32_t on_ack(Flow& f, const Packet* p) override;
  void on_timeout(Flow& f) override;

 private:
  enum Timer : std::uint32_t { kRto = 1, kDelayedAck = 2 };
  // One live event per flow and timer: the one whose generation matches; older ones are ignored.
  struct TimerState {
    Ps deadline = 0;  // 0: not running
    Ps event_at = 0;  // the live event's time
    std::uint32_t gen = 0;
    bool live = false;
  };
  // nic.tcp.sack, sender: the scoreboard (RFC 6675), indexed by PSN (one bit per packet sent).
  struct Scoreboard {
    std::vector<bool> sacked;    // packets SACKed above the cumulative point (below it: meaningless)
    std::uint32_t high_sacked = 0;  // one past the highest PSN SACKed (HighACK's SACK counterpart)
    std::uint32_t lost_end = 0;     // unSACKed packets in [una, lost_end) are lost (IsLost)
    std::uint32_t rxt_next = 0;     // HighRxt + 1: packets below it were resent in this recovery
    std::uint32_t pipe = 0;         // packets in the network (SetPipe), in recovery
    std::uint32_t dupacks = 0;      // ACKs with new SACK information since the last cumulative progress
    bool is_sacked(std::uint32_t psn) const { return psn < sacked.size() && sacked[psn]; }
  };
  struct Sender {
    Sender(const TcpConfig& c, std::uint32_t id) : reno(c), flow(id) {}
    TcpReno reno;
    std::uint32_t flow;   // reporting
    bool resend = false;  // the first unacknowledged packet goes again, before new data
    TimerState rto;
    std::unique_ptr<Scoreboard> sb;  // nic.tcp.sack only
  };
  // nic.tcp.sack, receiver: the ranges held above the cumulative point, in PSN order, and the last PSNs
  // that changed one, most recent first (the blocks the next ACK reports).
  struct OooRanges {
    struct Range {
      std::uint32_t start, end;
    };
    std::vector<Range> ranges;
    std::uint32_t recent[Packet::kMaxSackBlocks] = {};
    std::uint32_t recent_n = 0;
  };
  struct Receiver {
    PacketBits received;       // packets held above the cumulative point
    std::uint32_t high = 0;    // one past the highest PSN received
    std::uint32_t app_next = 0;
    std::uint32_t unacked = 0;  // in-order packets not yet acknowledged
    Ps echo_ts = 0;             // send time of the earliest of them
    TimerState delack;
    std::unique_ptr<OooRanges> ooo;  // nic.tcp.sack only
  };
  struct Counters {
    std::uint64_t acks = 0, delayed_acks = 0, timeouts = 0, bursts = 0;
    std::uint64_t sack_blocks = 0, sack_recoveries = 0, sack_retransmits = 0;
  };
  // nic.tcp.sack: the receiver's ranges after packet psn arrived out of order; the ACK's blocks.
  void sack_note(OooRanges& o, std::uint32_t psn, std::uint32_t expected);
  void sack_fill(OooRanges& o, std::uint32_t expected, Packet* a);
  // nic.tcp.sack: the sender's ACK, the scoreboard's derived figures, NextSeg.
  std::uint32_t on_sack_ack(Flow& f, Sender& s, const Packet* p);
  void sack_update(const Flow& f, Sender& s) const;
  SendChoice sack_next(Flow& f, Sender& s);

  void arm(TimerState& t, Ps deadline, std::uint32_t kind, std::uint32_t flow);
  void send_ack(Flow& f, Receiver& r);
  void rto_expired(Flow& f);
  void update_inflight(Flow& f) const {
    const std::uint32_t una = tx_[f.tx_slot].reno.una();
    auto offset = [&](std::uint32_t psn) {
      return std::min<std::uint64_t>(f.size_bytes, std::uint64_t{psn} * ctx_.config.mtu_bytes);
    };
    f.inflight_bytes = f.next_psn > una ? offset(f.next_psn) - offset(una) : 0;
  }
  // Segmentation offload: the flow holding the NIC for its burst, and whether it was offered a packet and
  // did not send it (the NIC held it: the burst ends).
  bool burst_blocks(const Flow& f) {
    if (burst_flow_ == kNoFlow || burst_flow_ == f.id) return false;
    if (!burst_offered_) return true;
    burst_flow_ = kNoFlow;
    return false;
  }
  void end_burst(const Flow& f) {
    if (burst_flow_ == f.id) burst_flow_ = kNoFlow;
  }

  const bool sack_ = ctx_.config.tcp_config.sack;
  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  Counters n_;
  std::uint32_t burst_flow_ = kNoFlow;
  std::uint64_t burst_left_ = 0;
  bool burst_offered_ = false;
};

void TcpTransport::arm(TimerState& t, Ps deadline, std::uint32_t kind, std::uint32_t flow) {
  t.deadline = deadline;
  if (t.live && t.event_at <= deadline) return;  // the live event comes first and looks again
  ++t.gen;
  t.live = true;
  t.event_at = deadline;
  ctx_.fabric.schedule(deadline, this, kind, (std::uint64_t{t.gen} << 32) | flow);
}

void TcpTransport::on_event(std::uint32_t kind, std::uint64_t data) {
  Flow& f = ctx_.flows[static_cast<std::uint32_t>(data)];
  const auto gen = static_cast<std::uint32_t>(data >> 32);
  TimerState& t = kind == kRto ? tx_[f.tx_slot].rto : rx_[f.rx_slot].delack;
  if (!t.live || gen != t.gen) return;  // superseded
  t.live = false;
  if (t.deadline == 0) return;  // stopped
  if (t.deadline > ctx_.now()) {
    arm(t, t.deadline, kind, f.id);
    return;
  }
  t.deadline = 0;
  if (kind == kRto) {
    rto_expired(f);
  } else if (rx_[f.rx_slot].unacked > 0) {
    ++n_.delayed_acks;
    send_ack(f, rx_[f.rx_slot]);
  }
  ctx_.wake_at(ctx_.now());  // the NIC sends what the timer queued
}

SendChoice TcpTransport::next(Flow& f) {
  Sender& s = tx_[f.tx_slot];
  if (f.sender_done) {
    end_burst(f);
    return all_sent();
  }
  if (s.resend) {
    SendChoice c;
    c.kind = SendChoice::ready;
    c.resend = true;
    c.psn = s.reno.una();
    c.payload = ctx_.payload_of(f, c.psn);
    return c;
  }
  if (s.sb) {
    if (s.reno.in_recovery()) return sack_next(f, s);
    // Slow start after a timeout: what the receiver SACKed since is not sent again (RFC 6675 5.1).
    while (f.next_psn < f.sent_high && s.sb->is_sacked(f.next_psn)) ++f.next_psn;
  }
  if (f.next_psn >= f.packets) {
    end_burst(f);
    return all_sent();
  }
  SendChoice c = window_choice(f, f.next_psn, false);
  if (c.kind == SendChoice::ready && !s.reno.allows(f.next_psn + 1 - s.reno.una())) c.kind = SendChoice::blocked;
  if (c.kind != SendChoice::ready) {
    end_burst(f);
    return c;
  }
  if (burst_blocks(f)) {
    c.kind = SendChoice::blocked;
    return c;
  }
  if (burst_flow_ == f.id) burst_offered_ = true;
  return c;
}

void TcpTransport::on_sent(Flow& f, const SendChoice& c) {
  Sender& s = tx_[f.tx_slot];
  burst_offered_ = false;
  if (s.sb && s.reno.in_recovery()) {
    // RFC 6675 (C.2 - C.4): a resend below the send point moves HighRxt; everything sent adds to pipe.
    if (c.resend) {
      s.sb->rxt_next = std::max(s.sb->rxt_next, c.psn + 1);
      ++n_.sack_retransmits;
    }
    ++s.sb->pipe;
  }
  if (c.resend) {
    s.resend = false;
  } else {
    advance(f, c.psn);
    const std::uint64_t tso = ctx_.config.tcp_config.tso_bytes;
    if (tso > ctx_.config.mtu_bytes) {
      if (burst_flow_ != f.id) {
        burst_flow_ = f.id;
        burst_left_ = tso;
        ++n_.bursts;
      }
      burst_left_ -= std::min<std::uint64_t>(burst_left_, c.payload);
      if (burst_left_ == 0) burst_flow_ = kNoFlow;
    }
  }
  update_inflight(f);
  if (s.rto.deadline == 0) arm(s.rto, ctx_.now() + s.reno.rto(), kRto, f.id);
}

bool TcpTransport::on_data(Flow& f, Packet* p) {
  ctx_.count_arrival(p);
  Receiver& r = rx_[f.rx_slot];
  const std::uint32_t psn = p->psn;
  bool at_once = true;
  if (psn < f.expected_psn || r.received[psn]) {
    ctx_.count_duplicate(f);
  } else {
    ctx_.count_order(f, psn, psn - f.expected_psn);
    r.received.set(psn, f.packets);
    if (r.ooo && psn > f.expected_psn) sack_note(*r.ooo, psn, f.expected_psn);
    const bool fills_hole = psn == f.expected_psn && r.high > psn + 1;
    r.high = std::max(r.high, psn + 1);
    if (psn == f.expected_psn) {
      if (r.unacked == 0) r.echo_ts = p->t_sent;
      while (f.expected_psn < f.packets && r.received[f.expected_psn]) {
        ctx_.deliver_to_application(f, r.app_next, f.expected_psn);
        ++f.expected_psn;
        ++r.unacked;
      }
      ctx_.complete_if_delivered(f);
      at_once = fills_hole || r.unacked >= ctx_.config.tcp_config.ack_every;
    }
  }
  ctx_.fabric.pool().put(p);
  if (at_once) {
    if (r.unacked == 0) r.echo_ts = 0;  // nothing new to time: the sender takes no sample from it
    send_ack(f, r);
  } else if (r.delack.deadline == 0) {
    arm(r.delack, ctx_.now() + ctx_.config.tcp_config.delayed_ack, kDelayedAck, f.id);
  }
  return true;
}

void TcpTransport::send_ack(Flow& f, Receiver& r) {
  r.unacked = 0;
  r.delack.deadline = 0;
  Packet* a = ctx_.new_control(f, PacketType::ack, f.expected_psn);
  if (!a) return;
  if (r.ooo) sack_fill(*r.ooo, f.expected_psn, a);
  a->echo_ts = r.echo_ts;
  echo(f, a);
  ++n_.acks;
  ctx_.control.push_back(a);
}

std::uint32_t TcpTransport::on_ack(Flow& f, const Packet* p) {
  NicCounters& c = ctx_.counters;
  c.received_bytes += p->size_bytes;
  c.waste_bytes += p->size_bytes;
  Sender& s = tx_[f.tx_slot];
  if (s.sb) return on_sack_ack(f, s, p);
  const std::uint32_t ack = std::min(p->ack_psn, f.sent_high);
  const bool progress = ack > s.reno.una();
  // A cumulative ACK past the send point (the receiver held what followed a hole): sending resumes there.
  if (ack > f.next_psn) f.next_psn = ack;
  if (progress && p->echo_ts != 0 && p->echo_ts <= ctx_.now()) s.reno.rtt_sample(ctx_.now() - p->echo_ts);
  const TcpReno::Resend resend = s.reno.on_ack(ack, f.next_psn);
  if (cc_) {
    // DCTCP: its window sees this ACK after us (Transport::receive_ack); clamp to what it allowed so far.
    s.reno.clamp(std::max<std::uint64_t>(cc_->window(f), ctx_.config.mtu_bytes));
  }
  if (resend != TcpReno::Resend::none) {
    s.resend = true;
  }
  if (progress) {
    f.acked_count = s.reno.una();
    f.last_ack = ctx_.now();
    if (f.acked_count >= f.packets) {
      ctx_.flows.sender_finished(f);
      s.resend = false;
    }
    // RFC 6298 5.2, 5.3: stopped when nothing is outstanding, restarted otherwise.
    s.rto.deadline = 0;
    if (!f.sender_done && f.sent_high > s.reno.una()) arm(s.rto, ctx_.now() + s.reno.rto(), kRto, f.id);
  }
  update_inflight(f);
  ctx_.activate(f);
  return s.reno.una();
}

void TcpTransport::sack_note(OooRanges& o, std::uint32_t psn, std::uint32_t expected) {
  // Drop the ranges the cumulative point has passed, then merge psn into its neighbours.
  auto& v = o.ranges;
  std::size_t gone = 0;
  while (gone < v.size() && v[gone].end <= expected) ++gone;
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(gone));
  auto it = std::lower_bound(v.begin(), v.end(), psn, [](const OooRanges::Range& r, std::uint32_t x) { return r.end < x; });
  if (it != v.end() && it->end == psn) {  // extends the range below
    it->end = psn + 1;
    auto nx = it + 1;
    if (nx != v.end() && nx->start == psn + 1) {
      it->end = nx->end;
      v.erase(nx);
    }
  } else if (it != v.end() && it->start == psn + 1) {  // extends the range above
    it->start = psn;
  } else {
    it = v.insert(it, OooRanges::Range{psn, psn + 1});
  }
  // The most recently changed range first (RFC 2018 4): psn stands for its range at the front, and no
  // other entry for the same range stays.
  std::uint32_t kept = 0;
  std::uint32_t keep[Packet::kMaxSackBlocks];
  for (std::uint32_t k = 0; k < o.recent_n; ++k)
    if ((o.recent[k] < it->start || o.recent[k] >= it->end) && kept + 1 < Packet::kMaxSackBlocks)
      keep[kept++] = o.recent[k];
  o.recent[0] = psn;
  for (std::uint32_t k = 0; k < kept; ++k) o.recent[k + 1] = keep[k];
  o.recent_n = kept + 1;
}

void TcpTransport::sack_fill(OooRanges& o, std::uint32_t expected, Packet* a) {
  auto& v = o.ranges;
  std::size_t gone = 0;
  while (gone < v.size() && v[gone].end <= expected) ++gone;
  v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(gone));
  const std::uint32_t limit = ctx_.config.tcp_config.sack_blocks;
  std::uint32_t n = 0;
  auto add = [&](const OooRanges::Range& r) {
    for (std::uint32_t b = 0; b < n; ++b)
      if (a->sack_start[b] == r.start) return;
    a->set_sack(n++, r.start, r.end);
  };
  // The ranges holding the most recently arrived packets, then (room left) the others from the top.
  for (std::uint32_t k = 0; k < o.recent_n && n < limit; ++k) {
    if (o.recent[k] < expected) continue;
    auto it = std::lower_bound(v.begin(), v.end(), o.recent[k],
                               [](const OooRanges::Range& r, std::uint32_t x) { return r.end <= x; });
    if (it != v.end() && it->start <= o.recent[k]) add(*it);
  }
  for (auto it = v.rbegin(); it != v.rend() && n < limit; ++it) add(*it);
  if (n == 0) return;
  a->sack_n = static_cast<std::uint8_t>(n);
  a->size_bytes += 2 + 8 * n;  // the SACK option: kind, length, 8 bytes per block
  n_.sack_blocks += n;
}

void TcpTransport::sack_update(const Flow& f, Sender& s) const {
  // IsLost: dupthresh SACKed packets above; SetPipe over [una, sent_high).
  Scoreboard& b = *s.sb;
  const std::uint32_t una = s.reno.una();
  const std::uint32_t dupthresh = ctx_.config.tcp_config.dupthresh;
  if (b.high_sacked < una) b.high_sacked = una;
  std::uint32_t above = 0;
  b.lost_end = una;
  for (std::uint32_t psn = b.high_sacked; psn > una;) {
    --psn;
    if (b.is_sacked(psn) && ++above == dupthresh) {
      b.lost_end = psn;
      break;
    }
  }
  if (!s.reno.in_recovery()) return;
  std::uint32_t pipe = 0;
  for (std::uint32_t psn = una; psn < f.sent_high; ++psn) {
    if (b.is_sacked(psn)) continue;
    if (psn >= b.lost_end) ++pipe;
    if (psn < b.rxt_next) ++pipe;
  }
  b.pipe = pipe;
}

SendChoice TcpTransport::sack_next(Flow& f, Sender& s) {
  // RFC 6675 (C): while cwnd - pipe >= 1 MSS, NextSeg.
  Scoreboard& b = *s.sb;
  SendChoice c;
  const std::uint64_t mss = ctx_.config.mtu_bytes;
  if (s.reno.cwnd() < (std::uint64_t{b.pipe} + 1) * mss) {
    end_burst(f);
    return c;  // blocked
  }
  const std::uint32_t una = s.reno.una();
  std::uint32_t psn = std::max(una, b.rxt_next);
  while (psn < b.high_sacked && b.is_sacked(psn)) ++psn;
  // Rule 1: the lowest lost packet not resent yet.
  if (psn < b.high_sacked && psn < b.lost_end) {
    end_burst(f);
    return window_choice(f, psn, true);
  }
  // Rule 2: new data, within the receive window.
  if (f.next_psn < f.packets) {
    c = window_choice(f, f.next_psn, false);
    if (c.kind == SendChoice::ready && ctx_.config.tcp_config.max_window &&
        std::uint64_t{f.next_psn + 1 - una} * mss > ctx_.config.tcp_config.max_window)
      c.kind = SendChoice::blocked;
    if (c.kind == SendChoice::ready) {
      if (burst_blocks(f)) {
        c.kind = SendChoice::blocked;
        return c;
      }
      if (burst_flow_ == f.id) burst_offered_ = true;
      return c;
    }
  }
  // Rule 3: an unSACKed packet below the highest SACKed one, not resent yet.
  end_burst(f);
  if (psn < b.high_sacked) return window_choice(f, psn, true);
  if (f.next_psn >= f.packets) return all_sent();
  return c;
}

std::uint32_t TcpTransport::on_sack_ack(Flow& f, Sender& s, const Packet* p) {
  Scoreboard& b = *s.sb;
  const std::uint32_t ack = std::min(p->ack_psn, f.sent_high);
  const bool progress = ack > s.reno.una();
  // Update(): the blocks above the cumulative point mark their packets SACKed.
  bool new_sack = false;
  const std::size_t nb = std::min<std::size_t>(p->sack_n, Packet::kMaxSackBlocks);
  const std::uint32_t floor = std::max(ack, s.reno.una());
  for (std::size_t k = 0; k < nb; ++k) {
    const std::uint32_t start = std::max(p->sack_start[k], floor);
    const std::uint32_t end = std::min(p->sack_end(k), f.sent_high);
    if (end > b.sacked.size()) b.sacked.resize(std::min<std::size_t>(f.packets, std::max<std::size_t>(end, 2 * b.sacked.size())), false);
    for (std::uint32_t psn = start; psn < end; ++psn) {
      if (b.sacked[psn]) continue;
      b.sacked[psn] = true;
      new_sack = true;
    }
    if (end > b.high_sacked) b.high_sacked = end;
  }
  if (ack > f.next_psn) f.next_psn = ack;
  if (progress && p->echo_ts != 0 && p->echo_ts <= ctx_.now()) s.reno.rtt_sample(ctx_.now() - p->echo_ts);
  s.reno.on_sack_ack(ack);
  if (progress) b.dupacks = 0;
  if (new_sack && !s.reno.in_recovery()) ++b.dupacks;
  if (cc_) s.reno.clamp(std::max<std::uint64_t>(cc_->window(f), ctx_.config.mtu_bytes));
  sack_update(f, s);
  // RFC 6675 5 (1), (2), (4): dupthresh duplicate ACKs or the first unacknowledged packet lost.
  const std::uint32_t una = s.reno.una();
  if (s.reno.may_recover() && una < f.sent_high && !b.is_sacked(una) &&
      (b.dupacks >= ctx_.config.tcp_config.dupthresh || una < b.lost_end)) {
    s.reno.enter_sack_recovery(f.sent_high);
    ++n_.sack_recoveries;
    b.rxt_next = una;
    s.resend = true;  // (4.3) the first unacknowledged packet now, whatever the window
    end_burst(f);
    sack_update(f, s);
  }
  if (progress) {
    f.acked_count = una;
    f.last_ack = ctx_.now();
    if (f.acked_count >= f.packets) {
      ctx_.flows.sender_finished(f);
      s.resend = false;
    }
    s.rto.deadline = 0;
    if (!f.sender_done && f.sent_high > una) arm(s.rto, ctx_.now() + s.reno.rto(), kRto, f.id);
  }
  update_inflight(f);
  ctx_.activate(f);
  return una;
}

void TcpTransport::rto_expired(Flow& f) {
  Sender& s = tx_[f.tx_slot];
  if (f.sender_done || s.reno.una() >= f.sent_high) return;
  ++f.timeouts;
  ++n_.timeouts;
  timeout(f);  // the congestion control, then on_timeout
  f.last_ack = ctx_.now();
  arm(s.rto, ctx_.now() + s.reno.rto(), kRto, f.id);
  ctx_.activate(f);
}

void TcpTransport::on_timeout(Flow& f) {
  // Everything past the cumulative point is presumed lost: go back to it, in slow start from one packet.
  Sender& s = tx_[f.tx_slot];
  s.reno.on_timeout(f.next_psn, f.sent_high);
  ctx_.counters.timeout_retransmits += f.next_psn - s.reno.una();
  if (s.sb) {
    // RFC 6675 5.1: recovery ends (RecoveryPoint = the highest PSN sent, in on_timeout) and, as RFC 2018
    // says, the SACKed packets are forgotten (the receiver may have reneged; ACKs rebuild the scoreboard).
    Scoreboard& b = *s.sb;
    std::fill(b.sacked.begin(), b.sacked.end(), false);
    b.high_sacked = b.lost_end = b.rxt_next = s.reno.una();
    b.pipe = b.dupacks = 0;
  }
  f.next_psn = s.reno.una();
  s.resend = false;
  end_burst(f);
  update_inflight(f);
}

void TcpTransport::report(Report& r) const {
  const TcpConfig& t = ctx_.config.tcp_config;
  ReportSection& s = r.open("tcp");
  s.set("min_rto_us", static_cast<double>(t.min_rto) / kPsPerUs);
  s.set("delayed_ack_us", static_cast<double>(t.delayed_ack) / kPsPerUs);
  s.set("ack_every", t.ack_every);
  s.set("tso_bytes", t.tso_bytes);
  s.set("dupthresh", t.dupthresh);
  s.sum("acks", n_.acks);
  s.sum("delayed_acks", n_.delayed_acks);
  s.sum("tso_bursts", n_.bursts);
  s.sum("fast_retransmits", std::uint64_t{0});
  s.sum("partial_ack_retransmits", std::uint64_t{0});
  s.sum("timeouts", n_.timeouts);
  s.sum("timeout_retransmits", ctx_.counters.timeout_retransmits);
  if (sack_) {
    s.set("sack_blocks", t.sack_blocks);
    s.sum("sack_blocks_sent", n_.sack_blocks);
    s.sum("sack_recoveries", n_.sack_recoveries);
    s.sum("sack_retransmits", n_.sack_retransmits);
  }
  for (std::size_t slot = 0; slot < tx_.size(); ++slot) {
    const TcpReno& w = tx_[slot].reno;
    s.sum("fast_retransmits", w.fast_retransmits());
    s.sum("partial_ack_retransmits", w.partial_acks());
    s.flow_value("cwnd", tx_[slot].flow, static_cast<double>(w.cwnd()));
    s.min("cwnd_min_bytes", w.min_cwnd());
  }
  s.finish_with([](ReportSection& u) {
    const std::size_t senders = u.flow_count("cwnd");
    u.set("cwnd_final_avg_bytes", senders ? u.flow_sum("cwnd") / static_cast<double>(senders) : 0.0);
    if (!senders) u.set("cwnd_min_bytes", std::uint64_t{0});
  });
  report_retransmissions(s);
}

}  // namespace

std::unique_ptr<Transport> make_tcp_transport(NicContext& ctx) { return std::make_unique<TcpTransport>(ctx); }

}  // namespace netasic
