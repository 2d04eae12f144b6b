// The causal event order's set-up for a run, and parallel.emulate_ranks: one process that cuts the links a
// partition would cut and hands what crosses them over only when each window ends, as a run split across
// processes does (docs/parallel.md). Its outputs equal those of the uncut run exactly when the results do not
// depend on the partition.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "tb/partition.h"
#include "tb/scenario.h"
#include "tb/topology.h"
#include "tlm/model/fabric.h"
#include "tlm/model/link.h"

namespace netasic {

// The longest window the causal order may use on `t` under any partition: the smallest propagation delay of
// a link a partition can cut (between switches, or a multi-homed host's further links). A credit return takes
// just that long, a frame at least that long.
Ps causal_window_ps(const Topology& t);

// sim.event_order = causal: puts `fabric` in the causal order. InputError for what the order cannot run (a
// component outside the model that drives SystemC time: nic.host_interface, a block co-simulated as rtl_sc).
void setup_event_order(const Scenario& s, const Topology& t, Fabric& fabric);

class PartitionEmulation final : public LinkCut, public WindowListener {
 public:
  // Cuts `links` ([2i] and [2i+1] per topology link i) as `p` cuts the topology.
  PartitionEmulation(Fabric& fabric, const Partition& p, const std::vector<std::unique_ptr<Link>>& links);
  ~PartitionEmulation() override;
  void deliver(Link& link, Packet* p, Ps head, const CausalContext& ctx) override;
  void credit(Link& link, Ps at, std::uint8_t vc, std::uint32_t bytes) override;
  void end_window(Ps end) override;
  const Partition& partition() const { return partition_; }
  std::uint64_t frames() const { return frames_handed_; }
  std::uint64_t credits() const { return credits_handed_; }
  std::uint64_t windows() const { return windows_; }

 private:
  struct Frame {
    Link* link;
    Packet* p;
    Ps head;
    CausalContext ctx;
  };
  struct Credit {
    Link* link;
    Ps at;
    std::uint32_t bytes;
    std::uint8_t vc;
  };
  Fabric& fabric_;
  Partition partition_;
  std::vector<Link*> cut_;
  std::vector<Frame> frames_;
  std::vector<Credit> credits_;
  std::uint64_t frames_handed_ = 0, credits_handed_ = 0, windows_ = 0;
};

// parallel.emulate_ranks > 0: the emulation for the scenario (null when 0). InputError when the causal order
// is off or the partition does not fit the topology.
std::unique_ptr<PartitionEmulation> emulate_partition(const Scenario& s, const Topology& t, Fabric& fabric,
                                                      const std::vector<std::unique_ptr<Link>>& links);

// summary.json's "parallel" section of an emulated partition: the ranks, the rule, the cut links and what
// crossed them.
nlohmann::json emulation_summary(const PartitionEmulation& e);

}  // namespace netasic
