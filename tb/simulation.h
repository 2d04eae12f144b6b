// One run of the model: elaborates the SystemC modules for a scenario, runs them, and reports.
// SystemC elaborates once per process, so a process holds at most one Simulation that has run.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tb/config/builders.h"
#include "tb/scenario.h"
#include "tb/throughput_probe.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/model/fabric.h"
#include "tlm/model/flow.h"
#include "tlm/model/link.h"
#include "tlm/model/nic.h"
#include "tlm/model/nic_host.h"
#include "tlm/model/report.h"
#include "tlm/model/routing.h"
#include "tlm/model/switch.h"

namespace netasic {

struct RunOptions {
  bool progress = false;          // print a progress line on stderr
  double progress_interval_s = 1.0;
};

class Simulation {
 public:
  explicit Simulation(const Scenario& scenario);
  ~Simulation();

  void run(const RunOptions& options = {});

  nlohmann::json summary() const;  // everything a run reports (see docs/outputs.md)
  std::string summary_table() const;
  void write_flows_csv(std::ostream& out) const;
  void write_ports_csv(std::ostream& out) const;
  // HPCC's fct.txt layout (docs/outputs.md): one line per completed flow, in order of completion.
  void write_fct_txt(std::ostream& out) const;
  nlohmann::json tables() const;  // tables.json: every Flowcut and flowlet table
  // One line per incomplete flow (at most `max`): where its sender and receiver stand.
  std::string incomplete_report(std::size_t max) const;
  // Writes every result file into `dir` (created if needed), each through a temporary file; OutputError
  // (tb/output_dir.h) when one cannot be written.
  void write_outputs(const std::string& dir) const;
  void write_outputs(const class OutputDir& out) const;
  // The run stopped early on SIGINT or SIGTERM (tb/output_dir.h).
  bool interrupted() const { return interrupted_; }
  // The progress watchdog stopped the run (sim.stall_timeout_us); stall_timeout() is that time.
  bool stalled() const { return stalled_; }
  Ps stall_timeout() const { return stall_timeout_ps_; }

  // Ideal FCT of a flow alone on the idle network: its wire bytes at the path's bottleneck rate plus the
  // path's latency (propagation, switch pipelines, NIC processing).
  Ps ideal_fct(const Flow& f) const;

  // For tests and tools.
  const Scenario& scenario() const { return scenario_; }
  const Topology& topology() const { return topology_; }
  const FlowTable& flows() const { return flows_; }
  const std::vector<std::unique_ptr<Switch>>& switches() const { return switches_; }
  const std::vector<std::unique_ptr<Nic>>& nics() const { return nics_; }
  const std::vector<std::unique_ptr<Link>>& links() const { return links_; }
  // nic.host_interface: host h's interface, to bind a host model's sockets to before the run (docs/tlm.md);
  // InputError when the scenario has none, or h is no host.
  NicHost& host_interface(std::uint32_t host);
  const RoutingTable& routing() const { return *routing_; }
  Fabric& fabric() { return *fabric_; }
  const Fabric& fabric() const { return *fabric_; }
  Ps sim_time() const { return end_time_; }
  double wall_seconds() const { return wall_seconds_; }
  std::uint64_t packet_hops() const;

  // For a run split across processes (tb/mpi_run.cpp): the flow table to merge the ranks' records into, the
  // run's end over every rank, ports.csv's rows of one switch, and tables.json's entries of one component
  // (switches first, then NICs, in index order).
  FlowTable& merged_flows() { return flows_; }
  void set_end_time(Ps t) { end_time_ = t; }
  void write_port_rows(std::ostream& out, std::uint32_t sw) const;
  nlohmann::json component_tables(std::size_t component) const;
  bool all_flows_completed() const { return flows_.completed() == flows_.size(); }

 private:
  void elaborate();
  void make_links(const BufferConfig& buffers, std::uint8_t vcs);
  void make_switches(const SwitchConfig& base, const BufferConfig& buffers, std::uint8_t vcs);
  void choose_prefetch(const Scenario& s);  // sim.prefetch
  static constexpr std::size_t kPrefetchAbovePorts = 1500;
  static constexpr std::size_t kDeepPrefetchAbovePorts = 10000;
  void bind_ports();
  void add_flows();
  void define_flow(std::uint32_t id, const FlowSpec& spec);  // identity, key and hash of flows_[id]
  void make_host_interfaces();  // tb/simulation_host.cpp
  nlohmann::json host_interface_summary() const;
  void report_components(Report& r) const;

  Scenario scenario_;
  Topology topology_;
  Workload workload_;
  FlowTable flows_;
  // Hands a flow whose predecessors were delivered to its source NIC (collectives).
  struct Releaser : FlowReleaser {
    Simulation* sim;
    explicit Releaser(Simulation* s) : sim(s) {}
    void release(std::uint32_t flow, Ps at) override;
  } releaser_{this};
  std::unique_ptr<RoutingTable> routing_;
  // Empty modules created before every other module of the simulation and destroyed first: see ~Simulation.
  std::vector<std::unique_ptr<sc_core::sc_module>> teardown_anchors_;
  std::unique_ptr<Fabric> fabric_;
  std::vector<std::unique_ptr<Switch>> switches_;
  std::vector<std::unique_ptr<Nic>> nics_;
  std::vector<std::unique_ptr<Link>> links_;  // two per topology link: [2i] a->b, [2i+1] b->a
  // nic.host_interface: messages start as flows of the table while the model runs (tb/simulation_host.cpp).
  struct HostMessages : MessageFabric, FlowListener {
    Simulation* sim;
    std::uint8_t tclass;              // workload.traffic_class
    std::vector<std::uint32_t> tags;  // per flow id (0 for the workload's flows)
    HostMessages(Simulation* s, std::uint8_t c) : sim(s), tclass(c) {}
    std::uint32_t hosts() const override;
    std::uint32_t start_message(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint32_t tag) override;
    std::uint32_t tag_of(std::uint32_t flow) const override { return flow < tags.size() ? tags[flow] : 0; }
    void sender_done(const Flow& f) override;
    void delivered(const Flow& f) override;
  };
  std::unique_ptr<HostMessages> host_messages_;
  std::vector<std::unique_ptr<NicHost>> host_ifs_;
  std::unique_ptr<ThroughputProbe> throughput_;  // workload.pattern: steady-state throughput
  NodePorts ports_;  // per node: its ports in topology link order
  NicConfig nic_config_;
  FlowcutParams flowcut_;
  RoutingPolicy policy_ = RoutingPolicy::ecmp;
  Ps switch_latency_ps_ = 0;
  Ps end_time_ = 0;
  double wall_seconds_ = 0;
  bool ran_ = false;
  bool interrupted_ = false;
  void check_stall();
  Ps stall_timeout_ps_ = 0;
  Ps stall_since_ = 0;
  std::uint64_t stall_delivered_ = 0;
  bool stalled_ = false;
  std::unique_ptr<class PacketTrace> trace_;  // trace.enabled: what the links report (tb/packet_trace.h)
  std::unique_ptr<class TimeSeries> series_;  // stats.sample_us > 0 (tb/timeseries.h)
  std::unique_ptr<class PartitionEmulation> emulation_;  // parallel.emulate_ranks > 0 (tb/partition_emulation.h)
};

}  // namespace netasic
