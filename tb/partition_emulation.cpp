#include "tb/partition_emulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "tb/choices.h"
#include "tlm/common/error.h"

namespace netasic {

Ps causal_window_ps(const Topology& t) {
  double shortest = std::numeric_limits<double>::infinity();
  std::vector<bool> first_seen(t.nodes, false);
  for (const TopoLink& l : t.links) {
    // A host lives with the switch of its first link, which a partition therefore never cuts.
    const bool host_a = !t.is_switch(l.a), host_b = !t.is_switch(l.b);
    if (host_a && !first_seen[l.a]) {
      first_seen[l.a] = true;
      if (t.is_switch(l.b)) continue;
    }
    if (host_b && !first_seen[l.b]) {
      first_seen[l.b] = true;
      if (t.is_switch(l.a)) continue;
    }
    shortest = std::min(shortest, l.delay_ns);
  }
  // A fabric of one switch: nothing can be cut; one window per microsecond is as good as any.
  if (shortest == std::numeric_limits<double>::infinity()) shortest = 1000;
  return ns_to_ps(shortest);
}

void setup_event_order(const Scenario& s, const Topology& t, Fabric& fabric) {
  if (s.choice<EventOrder>("sim.event_order") != EventOrder::causal) return;
  if (s.boolean("nic.host_interface"))
    throw InputError("sim.event_order = causal: nic.host_interface drives the fabric from SystemC processes of "
                     "its own, which the causal order's windows do not follow; use sim.event_order = sequence");
  for (const char* key : {"switch.flowsail.impl", "switch.flowcut_table.impl", "switch.fgfc_generator.impl",
                          "switch.flowlet_table.impl", "nic.reorder_buffer.impl"})
    if (s.choice<BlockImpl>(key) == BlockImpl::rtl_sc)
      throw InputError(fmt::format("sim.event_order = causal: {} = rtl_sc runs the block in a SystemC process of "
                                   "its own, which the causal order's windows do not follow; use rtl (the same "
                                   "RTL, called directly) or sim.event_order = sequence",
                                   key));
  const Ps window = causal_window_ps(t);
  if (window == 0)
    throw InputError("sim.event_order = causal: a link a partition can cut has no propagation delay, so no window "
                     "is short enough; give link.delay_ns > 0");
  fabric.use_causal_order(window);
}

PartitionEmulation::PartitionEmulation(Fabric& fabric, const Partition& p, const std::vector<std::unique_ptr<Link>>& links)
    : fabric_(fabric), partition_(p) {
  for (std::uint32_t i : p.cut)
    for (std::uint32_t dir = 0; dir < 2; ++dir) {
      Link* l = links[2 * std::size_t{i} + dir].get();
      l->set_cut(this);
      cut_.push_back(l);
    }
  fabric.set_window_listener(this);
}

PartitionEmulation::~PartitionEmulation() {
  // Frames still held when the run ended (a time limit) go back to the pool.
  for (const Frame& f : frames_) fabric_.pool().put(f.p);
}

void PartitionEmulation::deliver(Link& link, Packet* p, Ps head, const CausalContext& ctx) {
  frames_.push_back(Frame{&link, p, head, ctx});
}

void PartitionEmulation::credit(Link& link, Ps at, std::uint8_t vc, std::uint32_t bytes) {
  credits_.push_back(Credit{&link, at, bytes, vc});
}

void PartitionEmulation::end_window(Ps end) {
  ++windows_;
  // Credit returns in the order they were made (a link's ring is in time order); frames in reverse order, so
  // that nothing can depend on the order in which they come over.
  for (const Credit& c : credits_) {
    if (c.at < end) throw ModelError(fmt::format("{}: a credit return is due before the end of its window", c.link->name()));
    c.link->absorb_credit(c.at, c.vc, c.bytes);
  }
  credits_handed_ += credits_.size();
  credits_.clear();
  std::vector<Frame> frames;
  frames.swap(frames_);
  for (auto f = frames.rbegin(); f != frames.rend(); ++f) f->link->deliver_held(f->p, f->head, f->ctx);
  frames_handed_ += frames.size();
}

std::unique_ptr<PartitionEmulation> emulate_partition(const Scenario& s, const Topology& t, Fabric& fabric,
                                                      const std::vector<std::unique_ptr<Link>>& links) {
  const auto ranks = static_cast<std::uint32_t>(s.integer("parallel.emulate_ranks"));
  if (ranks == 0) return nullptr;
  if (!fabric.causal())
    throw InputError("parallel.emulate_ranks needs sim.event_order = causal (the default order depends on the "
                     "partition)");
  try {
    const Partition p = partition_fabric(t, ranks, s.choice<PartitionRule>("parallel.partition"), 64);
    return std::make_unique<PartitionEmulation>(fabric, p, links);
  } catch (const InputError& e) {
    throw InputError(fmt::format("parallel.emulate_ranks = {}, parallel.partition = {}: {}", ranks,
                                 to_string(s.choice<PartitionRule>("parallel.partition")), e.what()));
  }
}

nlohmann::json emulation_summary(const PartitionEmulation& e) {
  const Partition& p = e.partition();
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankLoad& l : p.load)
    ranks.push_back({{"hosts", l.hosts}, {"switches", l.switches}, {"links", l.links}, {"cut_links", l.cut_links}});
  return {{"emulated_ranks", p.ranks}, {"partition", to_string(p.rule)}, {"cut_links", p.cut.size()},
          {"ranks", ranks}, {"windows", e.windows()}, {"frames_handed_over", e.frames()},
          {"credit_returns_handed_over", e.credits()}};
}

}  // namespace netasic
