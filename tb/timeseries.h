// Time series of a run (`stats.sample_us`): every sample interval, per switch output port, its backlog,
// the utilization of its link over the interval, the packets it sent and its queues held by flow control;
// per switch (on each of its port rows), its Flowcut and flowlet table occupancy and the pause frames it
// sent in the interval. Written as timeseries.csv, which `netasic plot` draws. Sampling reads state only:
// results do not change.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tlm/model/event_queue.h"
#include "tlm/model/fabric.h"

namespace netasic {

class Simulation;
class Scenario;
class Switch;
class Link;

class TimeSeries : public EventTarget {
 public:
  TimeSeries(const Scenario& s, Simulation& sim);
  void on_event(std::uint32_t kind, std::uint64_t data) override;
  void write_csv(std::ostream& out) const;
  std::uint64_t samples() const { return samples_; }

 private:
  struct Port {
    std::string name;  // "sw3p5"
    std::uint32_t sw;
    std::uint16_t port;
    std::string peer;  // "sw7" or "host12"
    const Switch* owner;
    const Link* link;
    Ps last_busy = 0;
    std::uint64_t last_packets = 0;
  };
  Fabric& fabric_;
  Ps interval_;
  std::vector<Port> ports_;
  std::vector<std::pair<std::uint32_t, const Switch*>> switches_;  // the sampled switches
  std::vector<std::uint64_t> last_pause_frames_;                   // per switch, at the previous sample
  std::vector<std::uint64_t> interval_pause_frames_;               // per switch, in the interval sampled
  std::string rows_;
  std::uint64_t samples_ = 0;
};

}  // namespace netasic
