// Reorder transport: the destination's rearrange buffer with ACK/NACK, and the source's injection control
// (Martinez et al., IPDPS 2005). The destination stores out-of-order packets in its rearrange engine and
// delivers them in sequence; a packet it has no room for is rejected with a NACK and sent again. After a
// rejection the source limits its injection until every rejected packet is acknowledged: Adap-LI lets one
// packet go per packet acknowledged, Adap-LW only what fits in the destination's buffer. With pair
// connections every message of a source-destination pair shares one sequence space (the paper's
// connections), the messages sent in start order.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "tlm/blocks/reorder_buffer.h"
#include "tlm/common/error.h"
#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

class ReorderTransport final : public Transport {
 public:
  explicit ReorderTransport(NicContext& ctx) : Transport(ctx, false) {}

  void add_flow(Flow& f) override {
    tx_.emplace_back();
    tx_.back().flow = f.id;
    tx_.back().acked = PacketBits();
    if (cc_) cc_->add_sender(f);
  }
  void add_incoming_flow(Flow& f) override;
  void finish_setup() override;

  SendChoice next(Flow& f) override;
  void on_sent(Flow& f, const SendChoice& c) override {
    Sender& s = tx_[f.tx_slot];
    if (c.resend) s.resend.erase(s.resend.begin());
    else advance(f, c.psn);
    if (s.injection_limited && ctx_.config.injection == NicConfig::Injection::adap_li && s.li_credits) --s.li_credits;
    f.inflight_bytes += c.payload;
  }
  const ReorderBufferIf* reorder_buffer() const override { return rb_.get(); }
  const std::vector<std::uint64_t>& reorder_histogram() const override { return histogram_; }
  void report(Report& r) const override;
  std::string sender_detail(const Flow& f) const override {
    const Sender& s = tx_[f.tx_slot];
    return fmt::format(" (in order below {}), {} to resend, injection {}", s.acked_upto, s.resend.size(),
                       s.injection_limited ? "limited" : "unlimited");
  }

 protected:
  bool on_data(Flow& f, Packet* p) override;
  std::uint32_t on_ack(Flow& f, const Packet* p) override;
  void on_timeout(Flow& f) override { rewind(f, tx_[f.tx_slot].acked); }

 private:
  // Source: cumulative ACK point, packets to resend (NACKed), injection mode.
  struct Sender {
    std::uint32_t flow = kNone;
    PacketBits acked;
    std::uint32_t acked_upto = 0;      // every PSN below is acknowledged
    std::set<std::uint32_t> resend;    // NACKed PSNs, lowest first (the one the destination waits for)
    bool injection_limited = false;    // after a rejection, until every rejected PSN is acknowledged
    std::uint32_t rejected_max = 0;    // highest rejected PSN + 1
    std::uint32_t li_credits = 0;      // Adap-LI: packets that may be injected while limited
    std::uint32_t pair_prev = kNone;   // pair connections: the pair's previous message (sent first)
  };
  // Destination: the rearrange connection, and what the application saw.
  struct Receiver {
    std::uint32_t connection = 0;
    std::uint64_t seq_base = 0;  // pair connections: the connection's sequence position of PSN 0
    std::uint32_t app_next = 0;  // next PSN the application expects
  };
  // Pair connections: per connection, its messages in order with the first sequence position of each, and
  // how many packets it has delivered.
  struct PairConnection {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> messages;  // (first position, flow id)
    std::uint64_t delivered = 0;
  };

  bool injection_allows(const Flow& f, const Sender& s) const;
  void ack_upto(Flow& f, std::uint32_t sn);
  void order_pairs_at_source();
  void count_arrival(Flow& f, std::uint64_t position, std::uint64_t expected, std::uint32_t psn);
  void sample_occupancy();
  Flow& pair_flow_at(std::uint32_t connection, std::uint64_t position);

  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  std::unique_ptr<ReorderBufferIf> rb_;
  std::vector<std::uint64_t> histogram_;  // occupancy (units in use) sampled per arrival, 16 buckets
  std::vector<PairConnection> pairs_;
  std::vector<std::uint32_t> pair_of_src_;  // the connection of each source
  std::uint32_t incoming_ = 0;
};

// The names nic.reorder.memory and nic.reorder.injection take.
const char* memory_name(ReorderMemory m) { return m == ReorderMemory::dynamic_pool ? "dynamic" : "static"; }
const char* injection_name(NicConfig::Injection i) {
  switch (i) {
    case NicConfig::Injection::unlimited: return "unlimited";
    case NicConfig::Injection::adap_li: return "adap_li";
    case NicConfig::Injection::adap_lw: return "adap_lw";
  }
  return "?";
}

void ReorderTransport::report(Report& r) const {
  const NicCounters& n = ctx_.counters;
  const std::uint64_t unit = ctx_.config.reorder_unit_bytes;
  ReportSection& s = r.open("reorder");
  s.set("memory", memory_name(ctx_.config.reorder_buffer.memory));
  s.set("injection", injection_name(ctx_.config.injection));
  s.max("max_buffer_per_connection_bytes", std::uint64_t{rb_->mbs()} * unit);
  s.max("max_memory_per_nic_bytes", std::uint64_t{rb_->mms()} * unit);
  s.sum("rejections", rb_->rejections());
  s.sum("nacks", n.nacks_sent);
  s.sum("occupancy_histogram_16ths", histogram_);
  report_retransmissions(s);
}

void ReorderTransport::add_incoming_flow(Flow& f) {
  rx_.emplace_back();
  Receiver& r = rx_.back();
  if (ctx_.config.pair_connections) {
    if (pair_of_src_.size() <= f.src) pair_of_src_.resize(f.src + 1, kNone);
    if (pair_of_src_[f.src] == kNone) {
      pair_of_src_[f.src] = incoming_++;
      pairs_.emplace_back();
    }
    r.connection = pair_of_src_[f.src];
    pairs_[r.connection].messages.emplace_back(0, f.id);
  } else {
    r.connection = incoming_++;
  }
  if (cc_) cc_->add_receiver(f);
}

void ReorderTransport::finish_setup() {
  ReorderBufferConfig c = ctx_.config.reorder_buffer;
  c.connections = std::max<std::uint32_t>(1, incoming_);
  if (c.memory == ReorderMemory::dynamic_pool)  // a pool larger than every connection at its cap is never used
    c.pool_units = std::min<std::uint64_t>(c.pool_units, std::uint64_t{c.connections} * c.buffer_units);
  if (c.connections > 65536)
    throw InputError(fmt::format("{}: {} flows into one NIC; the rearrange engine holds at most 65536 connections",
                                 ctx_.name, c.connections));
  rb_ = ctx_.config.reorder_factory ? ctx_.config.reorder_factory(c, ctx_.name) : std::make_unique<ReorderBuffer>(c);
  histogram_.assign(16, 0);
  // Pair connections: the messages of a pair follow each other in one sequence space, in start order.
  FlowTable& flows = ctx_.flows;
  auto earlier = [&](std::uint32_t a, std::uint32_t b) {
    return flows[a].start != flows[b].start ? flows[a].start < flows[b].start : a < b;
  };
  for (PairConnection& pc : pairs_) {
    std::sort(pc.messages.begin(), pc.messages.end(), [&](const auto& a, const auto& b) { return earlier(a.second, b.second); });
    std::uint64_t position = 0;
    for (auto& m : pc.messages) {
      Flow& f = flows[m.second];
      m.first = position;
      rx_[f.rx_slot].seq_base = position;
      position += f.packets;
    }
  }
  if (ctx_.config.pair_connections) order_pairs_at_source();
}

void ReorderTransport::order_pairs_at_source() {
  // The same order, seen from the source: each message waits for the previous one of its pair (the flows
  // this NIC sends to the same destination, by start then id).
  FlowTable& flows = ctx_.flows;
  std::vector<std::tuple<std::uint32_t, Ps, std::uint32_t>> mine;  // (destination, start, flow id)
  for (const Sender& s : tx_) mine.emplace_back(flows[s.flow].dst, flows[s.flow].start, s.flow);
  std::sort(mine.begin(), mine.end());
  for (std::size_t i = 1; i < mine.size(); ++i)
    if (std::get<0>(mine[i]) == std::get<0>(mine[i - 1])) tx_[flows[std::get<2>(mine[i])].tx_slot].pair_prev = std::get<2>(mine[i - 1]);
}

Flow& ReorderTransport::pair_flow_at(std::uint32_t connection, std::uint64_t position) {
  const auto& m = pairs_[connection].messages;
  auto it = std::upper_bound(m.begin(), m.end(), std::make_pair(position, kNone));
  if (it == m.begin()) throw ModelError(fmt::format("{}: no message at sequence position {}", ctx_.name, position));
  return ctx_.flows[std::prev(it)->second];
}

SendChoice ReorderTransport::next(Flow& f) {
  Sender& s = tx_[f.tx_slot];
  SendChoice c;
  // A NACKed packet goes before new ones; those acknowledged meanwhile are dropped.
  while (!s.resend.empty() && (*s.resend.begin() < s.acked_upto || s.acked[*s.resend.begin()])) s.resend.erase(s.resend.begin());
  c.resend = !s.resend.empty();
  if (!c.resend) {
    while (f.next_psn < f.packets && s.acked[f.next_psn]) ++f.next_psn;
    if (f.next_psn >= f.packets) return all_sent();
  }
  c.psn = c.resend ? *s.resend.begin() : f.next_psn;
  c.payload = ctx_.payload_of(f, c.psn);
  // Pair connections: messages of a pair enter its sequence space in order.
  if (!c.resend && s.pair_prev != kNone && ctx_.flows[s.pair_prev].sent_high < ctx_.flows[s.pair_prev].packets) {
    c.kind = SendChoice::blocked;
    return c;
  }
  if (!window_allows(f, c.payload)) {
    c.kind = SendChoice::blocked;
    return c;
  }
  c.injection_ok = injection_allows(f, s);
  c.kind = SendChoice::ready;
  return c;
}

bool ReorderTransport::injection_allows(const Flow& f, const Sender& s) const {
  if (!s.injection_limited) return true;
  // Pair connections: injection state is kept per message, but ACKs come for whichever message of the pair
  // the destination is delivering. The packet the destination expects (this message's first unacknowledged
  // one, every earlier message of the pair acknowledged) always finds room, so it may always go; without
  // this a message could wait for ACKs that only its own expected packet can bring.
  const std::uint32_t next = s.resend.empty() ? f.next_psn : *s.resend.begin();
  if (ctx_.config.pair_connections) {
    const bool earlier_done = s.pair_prev == kNone || tx_[ctx_.flows[s.pair_prev].tx_slot].acked_upto >= ctx_.flows[s.pair_prev].packets;
    if (next == s.acked_upto && earlier_done) return true;
  }
  // Adap-LI: one packet per acknowledged packet; with nothing in flight (every packet acknowledged or
  // rejected) no ACK will come, and the destination has room: the next packet may go.
  if (ctx_.config.injection == NicConfig::Injection::adap_li) return s.li_credits > 0 || f.inflight_bytes == 0;
  // Adap-LW: only what fits in the destination's buffer, beyond the packet it expects.
  const ReorderBufferConfig& rb = ctx_.config.reorder_buffer;
  const std::uint32_t window = rb.buffer_units / std::max<std::uint32_t>(1, rb.max_packet_units) + 1;
  return next < s.acked_upto + window;
}

void ReorderTransport::count_arrival(Flow& f, std::uint64_t position, std::uint64_t expected, std::uint32_t psn) {
  // Order as the packets arrive from the network (the application's order is checked on delivery).
  if (position > expected) {
    ctx_.count_order(f, psn, static_cast<std::uint32_t>(std::min<std::uint64_t>(position - expected, 0xffffffffu)));
    return;
  }
  if (position < expected) ctx_.count_duplicate(f);
  ctx_.count_order(f, psn, 0);
}

void ReorderTransport::sample_occupancy() {
  const ReorderBufferConfig& c = rb_->config();
  const std::uint64_t cap = std::max<std::uint64_t>(
      1, c.memory == ReorderMemory::dynamic_pool ? c.pool_units : std::uint64_t{c.buffer_units} * c.connections);
  ++histogram_[std::min<std::uint64_t>(15, rb_->total_units() * 16 / (cap + 1))];
}

bool ReorderTransport::on_data(Flow& f, Packet* p) {
  NicCounters& n = ctx_.counters;
  ctx_.count_arrival(p);
  const Receiver& r = rx_[f.rx_slot];
  const std::uint32_t connection = r.connection;
  const bool pair = ctx_.config.pair_connections;
  const std::uint32_t mask = rb_->config().seq_bits >= 32 ? ~0u : (1u << rb_->config().seq_bits) - 1u;
  // The sequence number on the wire: the PSN, or with pair connections the message's position in the pair.
  const std::uint32_t psn = p->psn;
  const std::uint64_t position = pair ? r.seq_base + psn : psn;
  count_arrival(f, position, pair ? pairs_[connection].delivered : rb_->expected(connection), psn);
  const std::uint32_t unit = ctx_.config.reorder_unit_bytes;
  const std::uint32_t units = (p->size_bytes + unit - 1) / unit;
  const std::vector<ReorderEvent> events =
      rb_->arrive(connection, pair ? static_cast<std::uint32_t>(position) & mask : psn, units);
  sample_occupancy();
  // With pair connections an event may concern another message of the pair: its position in the pair is
  // found from the connection's delivered count (deliveries come in order) and the event's offset.
  auto target = [&](const ReorderEvent& ev, std::uint64_t at, std::uint32_t& local) -> Flow& {
    if (!pair) {
      local = ev.sn;
      return f;
    }
    Flow& g = pair_flow_at(connection, at);
    local = static_cast<std::uint32_t>(at - rx_[g.rx_slot].seq_base);
    return g;
  };
  for (const ReorderEvent& ev : events) {
    std::uint32_t sn = 0;
    switch (ev.kind) {
      case ReorderEventKind::deliver: {
        Flow& g = target(ev, pair ? pairs_[connection].delivered++ : 0, sn);
        ctx_.deliver_to_application(g, rx_[g.rx_slot].app_next, sn);
        g.expected_psn = sn + 1;
        ctx_.complete_if_delivered(g);
        break;
      }
      case ReorderEventKind::ack: {
        // Cumulative: the last packet delivered in order (or, for a duplicate, the one before the expected).
        if (pair && pairs_[connection].delivered == 0) break;  // nothing delivered on this pair yet
        Flow& g = target(ev, pair ? pairs_[connection].delivered - 1 : 0, sn);
        send_control(g, PacketType::ack, sn);
        break;
      }
      case ReorderEventKind::nack: {
        ++n.nacks_sent;
        const std::uint64_t at = pair ? pairs_[connection].delivered + ((ev.sn - rb_->expected(connection)) & mask) : 0;
        Flow& g = target(ev, at, sn);
        send_control(g, PacketType::nack, sn);
        break;
      }
      case ReorderEventKind::stored: break;
    }
  }
  ctx_.fabric.pool().put(p);
  return true;
}

void ReorderTransport::ack_upto(Flow& f, std::uint32_t sn) {
  // Cumulative: everything up to sn is delivered in order.
  Sender& s = tx_[f.tx_slot];
  if (sn >= f.packets || sn + 1 <= s.acked_upto) return;
  for (std::uint32_t psn = s.acked_upto; psn <= sn; ++psn) {
    if (s.acked[psn]) continue;
    s.acked.set(psn, f.packets);
    ++f.acked_count;
    f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, ctx_.payload_of(f, psn));
    if (s.injection_limited) ++s.li_credits;
  }
  s.acked_upto = sn + 1;
  f.last_ack = ctx_.now();
  if (s.injection_limited && s.acked_upto >= s.rejected_max) {
    s.injection_limited = false;  // every rejected packet acknowledged: back to unlimited injection
    s.li_credits = 0;
  }
  if (f.acked_count == f.packets) ctx_.flows.sender_finished(f);
}

std::uint32_t ReorderTransport::on_ack(Flow& f, const Packet* p) {
  ctx_.counters.received_bytes += p->size_bytes;
  ctx_.counters.waste_bytes += p->size_bytes;
  Sender& s = tx_[f.tx_slot];
  const std::uint32_t sn = p->ack_psn;
  if (p->type == PacketType::ack) {
    ack_upto(f, sn);
    // Pair connections: the ACK covers the pair's earlier messages too.
    for (std::uint32_t prev = s.pair_prev; prev != kNone; prev = tx_[ctx_.flows[prev].tx_slot].pair_prev) {
      Flow& g = ctx_.flows[prev];
      if (tx_[g.tx_slot].acked_upto >= g.packets) break;
      ack_upto(g, g.packets - 1);
    }
    return s.acked_upto;
  }
  // NACK sn: the destination rejected it; send it again.
  if (sn >= f.packets || sn < s.acked_upto || s.acked[sn]) return s.acked_upto;
  s.resend.insert(sn);
  f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, ctx_.payload_of(f, sn));
  if (ctx_.config.injection != NicConfig::Injection::unlimited) {
    if (!s.injection_limited) {
      s.injection_limited = true;
      s.li_credits = 0;
    }
    s.rejected_max = std::max(s.rejected_max, sn + 1);
  }
  ctx_.activate(f);
  return s.acked_upto;
}

}  // namespace

std::unique_ptr<Transport> make_reorder_transport(NicContext& ctx) { return std::make_unique<ReorderTransport>(ctx); }

}  // namespace netasic
