#include "tlm/model/congestion_control.h"

#include <array>

#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

DctcpControl::DctcpControl(const NicConfig& config, NicCounters& counters) : config_(config), counters_(counters) {}

void DctcpControl::add_sender(const Flow& f) {
  if (tx_.size() <= f.tx_slot) {
    tx_.resize(f.tx_slot + 1, Sender{Dctcp(config_.dctcp_config)});
    tx_flow_.resize(f.tx_slot + 1, 0);
  }
  tx_flow_[f.tx_slot] = f.id;
}

// Per flow this NIC sends: its window's final state and history. The averages over every sender of the run
// add up in flow-id order. DCTCP reacts to the switches' CE marks, so it also brings the ecn section.
void DctcpControl::report(Report& r) const {
  r.open("ecn");
  ReportSection& s = r.open("congestion_control");
  s.set("type", "dctcp");
  s.set("g", config_.dctcp_config.g);
  s.set("initial_window_bytes", config_.dctcp_config.initial_window);
  s.sum("ece_acks", counters_.ece_acks);
  s.sum("window_cuts", std::uint64_t{0});
  s.sum("alpha_updates", std::uint64_t{0});
  s.max("alpha_final_max", 0.0);
  s.max("alpha_max", 0.0);
  for (std::size_t slot = 0; slot < tx_.size(); ++slot) {
    const Dctcp& w = tx_[slot].window;
    s.sum("window_cuts", w.cuts());
    s.sum("alpha_updates", w.windows());
    s.flow_value("alpha", tx_flow_[slot], w.alpha());
    s.max("alpha_final_max", w.alpha());
    s.max("alpha_max", w.max_alpha());
    s.flow_value("window", tx_flow_[slot], static_cast<double>(w.window()));
    s.min("window_min_bytes", w.min_window());
  }
  s.finish_with([](ReportSection& t) {
    const std::size_t senders = t.flow_count("alpha");
    const double k = senders ? static_cast<double>(senders) : 1.0;
    t.set("alpha_final_avg", t.flow_sum("alpha") / k);
    t.set("window_final_avg_bytes", t.flow_sum("window") / k);
    if (!senders) t.set("window_min_bytes", std::uint64_t{0});
  });
}

void DctcpControl::add_receiver(const Flow& f) {
  if (rx_.size() <= f.rx_slot) rx_.resize(f.rx_slot + 1);
}

void DctcpControl::echo(const Flow& f, Packet* ack) {
  Receiver& r = rx_[f.rx_slot];
  ack->echo_rx_bytes = static_cast<std::uint32_t>(r.rx_bytes);  // modulo 2^32
  ack->echo_ce_bytes = static_cast<std::uint32_t>(r.ce_bytes);
  ack->ece = r.ce_bytes != r.echoed_ce_bytes ? 1 : 0;
  r.echoed_ce_bytes = r.ce_bytes;
}

void DctcpControl::on_ack(const Flow& f, const Packet* p, std::uint32_t una) {
  Sender& s = tx_[f.tx_slot];
  // The counts run modulo 2^32: a difference in the lower half of the range is new, one in the upper half
  // is an older echo (an ACK overtaken by a later one), which brings nothing.
  auto advance = [](std::uint32_t& seen, std::uint32_t echoed) -> std::uint64_t {
    const std::uint32_t d = echoed - seen;
    if (d >= 0x80000000u) return 0;
    seen = echoed;
    return d;
  };
  const std::uint64_t rx = advance(s.seen_rx_bytes, p->echo_rx_bytes);
  const std::uint64_t ce = advance(s.seen_ce_bytes, p->echo_ce_bytes);
  if (p->ece) ++counters_.ece_acks;
  const std::uint64_t acked = std::uint64_t{f.acked_count - s.acked_seen} * config_.mtu_bytes;
  s.acked_seen = f.acked_count;
  s.window.on_ack(acked, rx, ce, una, f.sent_high);
}

namespace {
std::unique_ptr<CongestionControl> make_dctcp(NicContext& ctx) {
  return std::make_unique<DctcpControl>(ctx.config, ctx.counters);
}
struct Registered {
  CongestionControlKind kind;
  const char* name;  // the scenario's nic.cc
  std::unique_ptr<CongestionControl> (*make)(NicContext&);  // none: null, no controller
};
constexpr std::array<Registered, 3> kControllers{{
    {CongestionControlKind::none, "none", nullptr},
    {CongestionControlKind::dctcp, "dctcp", make_dctcp},
    {CongestionControlKind::dcqcn, "dcqcn", make_dcqcn_control},
}};
}  // namespace

std::vector<std::pair<const char*, CongestionControlKind>> congestion_control_choices() {
  std::vector<std::pair<const char*, CongestionControlKind>> choices;
  for (const Registered& r : kControllers) choices.emplace_back(r.name, r.kind);
  return choices;
}

std::unique_ptr<CongestionControl> make_congestion_control(NicContext& ctx) {
  for (const Registered& r : kControllers)
    if (r.kind == ctx.config.cc) return r.make ? r.make(ctx) : nullptr;
  return nullptr;
}

}  // namespace netasic
