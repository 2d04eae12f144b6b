#include "tb/timeseries.h"

#include <fmt/format.h>

#include "tb/scenario.h"
#include "tb/simulation.h"
#include "tlm/common/error.h"
#include "tlm/model/switch.h"

namespace netasic {

TimeSeries::TimeSeries(const Scenario& s, Simulation& sim)
    : fabric_(sim.fabric()), interval_(static_cast<Ps>(s.number("stats.sample_us") * 1e6 + 0.5)) {
  if (interval_ == 0) throw InputError("stats.sample_us must be positive to sample (0 turns sampling off)");
  const Topology& t = sim.topology();
  std::vector<char> chosen(t.switches(), 0);
  const auto& list = s.list("stats.switches");
  for (const std::string& item : list) {
    if (item == "all") {
      std::fill(chosen.begin(), chosen.end(), 1);
      continue;
    }
    if (!is_plain_decimal(item, false) || item[0] == '-' || item[0] == '+' || item.size() > 10 ||
        std::stoull(item) >= t.switches())
      throw InputError(fmt::format("stats.switches: {} is not a switch id (0..{}) or all (set by {})", item,
                                   t.switches() - 1, s.origin("stats.switches")));
    chosen[std::stoull(item)] = 1;
  }
  if (list.empty()) std::fill(chosen.begin(), chosen.end(), 1);
  // Link 2i carries topology link i from a to b, 2i+1 from b to a; a node's ports follow topology link order.
  std::vector<std::uint16_t> next_port(t.nodes, 0);
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    for (int dir = 0; dir < 2; ++dir) {
      const std::uint32_t from = dir == 0 ? l.a : l.b, to = dir == 0 ? l.b : l.a;
      const std::uint16_t port = next_port[from]++;
      if (!t.is_switch(from) || !chosen[t.switch_index[from]]) continue;
      const auto sw = static_cast<std::uint32_t>(t.switch_index[from]);
      const std::string peer = t.is_switch(to)
                                   ? fmt::format("sw{}", t.switch_index[to])
                                   : fmt::format("host{}", t.owner(static_cast<std::uint32_t>(t.host_index[to])));
      ports_.push_back(Port{fmt::format("sw{}p{}", sw, port), sw, port, peer, sim.switches()[sw].get(),
                            sim.links()[2 * i + dir].get()});
    }
  }
  last_pause_frames_.assign(t.switches(), 0);
  interval_pause_frames_.assign(t.switches(), 0);
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw)
    if (chosen[sw]) switches_.emplace_back(sw, sim.switches()[sw].get());
  rows_ = "time_us,port,switch,port_index,peer,queue_bytes,utilization,packets,stopped_queues,flowcut_entries,"
          "flowlet_entries,pause_frames\n";
  fabric_.schedule(interval_, this, 0);
}

void TimeSeries::on_event(std::uint32_t, std::uint64_t) {
  const Ps now = fabric_.now();
  ++samples_;
  for (const auto& [sw, owner] : switches_) {  // each switch's pause frames in this interval, once
    const EgressFc* fc = owner->egress_fc();
    const std::uint64_t sent = fc ? fc->counters().pause_frames : 0;
    interval_pause_frames_[sw] = sent - last_pause_frames_[sw];
    last_pause_frames_[sw] = sent;
  }
  for (Port& p : ports_) {
    const EgressFc* fc = p.owner->egress_fc();
    // Busy time is counted when a packet starts on the wire, so an interval can exceed 1 slightly when a
    // packet straddles its end; the next interval is short by as much.
    const Ps busy = p.link->busy_time();
    const std::uint64_t packets = p.link->packets_sent();
    const FlowcutTableIf* flowcut = p.owner->flowcut_table();
    const FlowletTableIf* flowlet = p.owner->flowlet_table();
    rows_ += fmt::format("{:.3f},{},{},{},{},{},{:.6f},{},{},{},{},{}\n", static_cast<double>(now) / 1e6, p.name, p.sw,
                         p.port, p.peer, p.owner->backlog(p.port),
                         static_cast<double>(busy - p.last_busy) / static_cast<double>(interval_),
                         packets - p.last_packets, fc ? fc->stopped_queues(p.port) : 0,
                         flowcut ? flowcut->occupancy() : 0, flowlet ? flowlet->occupancy() : 0,
                         interval_pause_frames_[p.sw]);
    p.last_busy = busy;
    p.last_packets = packets;
  }
  // Sample only while the model has work: a run with no other event left ends (or is a deadlock) as it
  // would unsampled.
  if (fabric_.pending() > 0 && !fabric_.stopped()) fabric_.schedule(now + interval_, this, 0);
}

void TimeSeries::write_csv(std::ostream& out) const { out << rows_; }

}  // namespace netasic
