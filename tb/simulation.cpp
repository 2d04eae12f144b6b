#include "tb/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "tb/config/builders.h"
#include "tb/output_dir.h"
#include "tb/packet_trace.h"
#include "tb/partition_emulation.h"
#include "tb/timeseries.h"
#include "tb/report.h"
#include "tb/workload_telemetry.h"
#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"
#include "tlm/common/huge_pages.h"
#include "tlm/common/log.h"

namespace netasic {

namespace {
// An empty module; a few of them are the first modules of a simulation (see ~Simulation).
struct TeardownAnchor final : sc_core::sc_module {
  explicit TeardownAnchor(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {}
};
constexpr int kTeardownAnchors = 8;
}  // namespace

Simulation::Simulation(const Scenario& scenario) : scenario_(scenario) {
  if (scenario_.boolean("sim.huge_pages")) prepare_huge_page_heap();
  for (int i = 0; i < kTeardownAnchors; ++i)
    teardown_anchors_.push_back(std::make_unique<TeardownAnchor>(sc_core::sc_gen_unique_name("teardown_anchor")));
  stall_timeout_ps_ = static_cast<Ps>(scenario_.number("sim.stall_timeout_us") * 1e6 + 0.5);
  // A TCP flow may sit out backed-off retransmission timeouts without delivering a byte: the watchdog
  // waits for four of them (1 + 2 + 4 + 8 minimum RTOs) before it calls the run stalled.
  if (stall_timeout_ps_ && scenario_.choice<TransportKind>("nic.transport") == TransportKind::tcp)
    stall_timeout_ps_ = std::max(stall_timeout_ps_, static_cast<Ps>(15 * scenario_.number("nic.tcp.min_rto_us") * 1e6));
  elaborate();
  if (scenario_.boolean("trace.enabled")) trace_ = std::make_unique<PacketTrace>(scenario_, *this);
  if (scenario_.number("stats.sample_us") > 0) series_ = std::make_unique<TimeSeries>(scenario_, *this);
}
Simulation::~Simulation() {
  // SystemC 2.3's registries remove an entry by searching for it and moving the last entry into its place:
  // ports and exports are searched for from the newest, modules (and the kernel's list of top-level
  // objects) from the oldest. So modules go newest first (their sockets are then the newest ports), after
  // the anchors, the oldest modules, which go first, oldest first: each leaves its place near the front to
  // the last entry. The kernel's own modules, created when the simulation starts and alive until the
  // process ends, take the first places (SystemC 2.3.4 creates one); the fabric's newest modules take the
  // others, and from then on each module leaves from among the first few places, to the next newest.
  // Without the anchors every module was searched for past all the older ones: 2.8 s of a 7 s run at 8,192
  // hosts, and quadratic in the fabric's size.
  emulation_.reset();  // it hands held frames back to the fabric's pool
  for (auto& anchor : teardown_anchors_) anchor.reset();
  auto newest_first = [](auto& modules) {
    while (!modules.empty()) modules.pop_back();
  };
  newest_first(host_ifs_);
  newest_first(nics_);
  newest_first(switches_);
  newest_first(links_);
  fabric_.reset();
}

void Simulation::elaborate() {
  const Scenario& s = scenario_;
  topology_ = build_topology(s);
  workload_ = build_workload(s, topology_);
  const Topology& t = topology_;
  ports_ = build_ports(t);
  if (s.boolean("sim.huge_pages")) {
    // What the fabric will take, from the peaks of the bench's fat trees: 53 KiB a host at 27,648 hosts and
    // 59 KiB at 65,536 (docs/performance.md, "Start-up: the heap on huge pages from the start"). Reserving
    // too much costs address space only; what does not fit is collapsed after the build, as before.
    constexpr std::size_t kBase = std::size_t{64} << 20, kPerHost = std::size_t{64} << 10;
    netasic::log(LogLevel::info, "{}", reserve_huge_page_heap(kBase + kPerHost * t.hosts()));
  }
  // Building a large fabric takes seconds to tens of seconds: the log says where they went.
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  try {
    routing_ = build_routing_table(s, t, ports_);
  } catch (const InputError& e) {
    // Name the topology (for a file, its path) the routing found wrong: "topo.txt: 6 hosts, ...: not connected".
    throw InputError(fmt::format("{}: {}", t.description, e.what()));
  }
  netasic::log(LogLevel::info, "routing table of {} switches in {:.3f} s", t.switches(), seconds_since(t0));
  const auto t1 = std::chrono::steady_clock::now();
  policy_ = build_routing_policy(s, t);
  const std::uint8_t vcs = virtual_channels(t, policy_);
  if (policy_ == RoutingPolicy::flowcut) flowcut_ = build_flowcut_params(s, t, *routing_);
  const FlowcutParams* flowcut = policy_ == RoutingPolicy::flowcut ? &flowcut_ : nullptr;
  nic_config_ = build_nic_config(s, t, flowcut);
  const BufferConfig buffers = build_buffer_config(s, nic_config_);
  const SwitchConfig switch_config = build_switch_config(s, policy_, vcs, buffers, flowcut);
  switch_latency_ps_ = switch_config.latency_ps;

  fabric_ = std::make_unique<Fabric>("fabric", ns_to_ps(s.number("sim.sync_quantum_ns")),
                                     event_horizon_ps(s, t, nic_config_, buffers.max_packet_bytes));
  setup_event_order(s, t, *fabric_);
  if (s.number("sim.max_time_us") > 0) fabric_->set_time_limit(static_cast<Ps>(s.number("sim.max_time_us") * kPsPerUs));
  fabric_->set_stats_window(build_stats_window(s));
  make_links(buffers, vcs);
  emulation_ = emulate_partition(s, t, *fabric_, links_);
  make_switches(switch_config, buffers, vcs);
  choose_prefetch(s);
  const std::uint64_t seed = static_cast<std::uint64_t>(s.integer("sim.seed"));
  for (std::uint32_t h = 0; h < t.hosts(); ++h)
    nics_.push_back(std::make_unique<Nic>(fmt::format("nic{}", h).c_str(), *fabric_, nic_config_, flows_, h, seed));
  bind_ports();
  add_flows();
  if (s.boolean("nic.host_interface")) make_host_interfaces();
  netasic::log(LogLevel::info, "{} links, {} switches and {} NICs built in {:.3f} s", links_.size(), switches_.size(),
               nics_.size(), seconds_since(t1));
}

// sim.prefetch: the event loop's prefetch steps pay once the fabric's per-port state outgrows the caches, and a
// third step once it is far past them. Measured on fat trees (docs/performance.md, "Prefetch steps by fabric
// size" and "A third hook step on the largest fabrics"): off is faster at 1,250 switch ports and below, on at
// 2,160 and above; three steps are slower than two at 5,120 switch ports, about even at 10,000, and faster or
// even at 17,280 and 40,960.
void Simulation::choose_prefetch(const Scenario& s) {
  std::size_t ports = 0;
  for (const auto& sw : switches_) ports += sw->radix();
  PrefetchSteps mode = s.choice<PrefetchSteps>("sim.prefetch");
  if (mode == PrefetchSteps::automatic) {
    mode = ports > kDeepPrefetchAbovePorts ? PrefetchSteps::deep
           : ports > kPrefetchAbovePorts   ? PrefetchSteps::on
                                           : PrefetchSteps::off;
  }
  const unsigned steps = mode == PrefetchSteps::deep ? 3 : mode == PrefetchSteps::on ? 2 : 0;
  fabric_->set_prefetch_steps(steps);  // switches and NICs read it at start_of_simulation
  netasic::log(LogLevel::info, "prefetch steps {} ({} switch ports, sim.prefetch = {})",
               steps == 3 ? "deep" : steps == 2 ? "on" : "off", ports, s.string("sim.prefetch"));
}

// Two links per topology link, [2i] a->b and [2i+1] b->a, each advertising its receiver's credits.
void Simulation::make_links(const BufferConfig& buffers, std::uint8_t vcs) {
  const Topology& t = topology_;
  const std::uint64_t seed = static_cast<std::uint64_t>(scenario_.integer("sim.seed"));
  // SystemC names are unique: the second and later of parallel links between two nodes get a suffix.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> parallel;
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    const std::uint32_t k = parallel[{std::min(l.a, l.b), std::max(l.a, l.b)}]++;
    for (int dir = 0; dir < 2; ++dir) {
      const std::uint32_t from = dir == 0 ? l.a : l.b, to = dir == 0 ? l.b : l.a;
      const LinkConfig lc = build_link_config(scenario_, l, buffers.credits(t.is_switch(to), vcs));
      const std::string name = k == 0 ? fmt::format("link_{}_{}", from, to) : fmt::format("link_{}_{}_{}", from, to, k);
      links_.push_back(std::make_unique<Link>(name.c_str(), *fabric_, lc, seed, static_cast<std::uint32_t>(links_.size())));
    }
  }
}

void Simulation::make_switches(const SwitchConfig& base, const BufferConfig& buffers, std::uint8_t vcs) {
  const Topology& t = topology_;
  const std::uint64_t seed = static_cast<std::uint64_t>(scenario_.integer("sim.seed"));
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) {
    const std::uint32_t node = t.switch_node[sw];
    double fastest = 0;
    for (const PortRef& r : ports_[node]) fastest = std::max(fastest, t.links[r.link].rate_gbps);
    const SwitchConfig sc = for_switch(scenario_, base, static_cast<std::uint16_t>(ports_[node].size()), fastest,
                                       buffers.credits(true, vcs));
    switches_.push_back(std::make_unique<Switch>(fmt::format("sw{}", sw).c_str(), *fabric_, sc, *routing_, sw, seed));
    switches_.back()->set_flows(&flows_);
  }
}

// Binds sockets: the sender's initiator to the link's target, the link's initiator to the receiver.
void Simulation::bind_ports() {
  const Topology& t = topology_;
  for (std::uint32_t n = 0; n < t.nodes; ++n) {
    for (std::uint16_t p = 0; p < ports_[n].size(); ++p) {
      const PortRef& r = ports_[n][p];
      Link* out_link = links_[2 * r.link + (r.forward ? 0 : 1)].get();
      Link* in_link = links_[2 * r.link + (r.forward ? 1 : 0)].get();
      if (t.is_switch(n)) {
        Switch& sw = *switches_[static_cast<std::size_t>(t.switch_index[n])];
        sw.out[p]->bind(out_link->in);
        in_link->out.bind(*sw.in[p]);
        sw.attach(p, in_link, out_link);
      } else {
        Nic& nic = *nics_[static_cast<std::size_t>(t.host_index[n])];
        nic.out.bind(out_link->in);
        in_link->out.bind(nic.in);
        nic.attach(in_link, out_link);
      }
    }
  }
}

void Simulation::Releaser::release(std::uint32_t flow, Ps at) { sim->nics_[sim->flows_[flow].src]->release_flow(flow, at); }

// The workload's flows, each given to its source and destination NIC.
void Simulation::add_flows() {
  auto& flows = flows_.flows();
  flows.resize(workload_.flows.size());
  if (!workload_.deps.empty()) {
    std::vector<Ps> floor(workload_.flows.size());  // a waiting flow starts no earlier than its own start
    for (std::size_t i = 0; i < floor.size(); ++i) floor[i] = workload_.flows[i].start;
    flows_.set_dependencies(workload_.deps, workload_.gap, &releaser_, workload_.dep_delay, floor);
  }
  for (std::uint32_t id = 0; id < workload_.flows.size(); ++id) {
    const FlowSpec& spec = workload_.flows[id];
    define_flow(id, spec);
    if (flows_.waits(id)) flows[id].start = kNever;  // a waiting flow gets its start when released
    nics_[spec.src]->add_flow(id);
    nics_[spec.dst]->add_incoming_flow(id);
  }
  for (auto& nic : nics_) nic->finish_setup();
  if (scenario_.choice<WorkloadPattern>("workload.pattern") != WorkloadPattern::none) {
    throughput_ = std::make_unique<ThroughputProbe>(
        *fabric_, flows_, static_cast<Ps>(scenario_.number("workload.throughput_sample_us") * kPsPerUs),
        scenario_.number("workload.throughput_warmup"));
    throughput_->start();
  }
}

void Simulation::define_flow(std::uint32_t id, const FlowSpec& spec) {
  Flow& f = flows_[id];
  f.id = id;
  f.src = spec.src;
  f.dst = spec.dst;
  f.size_bytes = spec.size_bytes;
  f.start = spec.start;
  f.tclass = spec.tclass;
  f.key.src_addr = 0x0A000000u + spec.src;
  f.key.dst_addr = 0x0A000000u + spec.dst;
  f.key.src_port = static_cast<std::uint16_t>(49152 + id % 16384);
  f.key.dst_port = spec.dport;
  const auto bytes = f.key.bytes();
  f.hash = crc32(bytes.data(), bytes.size());
}

std::uint64_t Simulation::packet_hops() const {
  std::uint64_t hops = 0;
  for (const auto& l : links_) hops += l->packets_sent();
  return hops;
}

void Simulation::run(const RunOptions& options) {
  if (ran_) throw ModelError("a Simulation runs once (SystemC elaborates once per process)");
  ran_ = true;
  if (scenario_.boolean("sim.huge_pages")) {
    // Part of building the model, like elaboration: before the clock starts.
    const auto h0 = std::chrono::steady_clock::now();
    const std::string account = use_huge_pages();
    netasic::log(LogLevel::info, "{} in {:.3f} s", account,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - h0).count());
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t last_events = 0;
  auto last_t = t0;
  // The callback also stops the run on SIGINT / SIGTERM (tb/output_dir.h), so it is always set; the wall
  // clock is read once per 64K events, the progress line printed at its own interval.
  auto last_print = t0;
  fabric_->set_progress(
      [&, this] {
        const auto now = std::chrono::steady_clock::now();
        if (interrupt_signal() != 0) {
          interrupted_ = true;
          fabric_->request_stop();
        }
        check_stall();
        if (!options.progress || std::chrono::duration<double>(now - last_print).count() < options.progress_interval_s)
          return;
        last_print = now;
        {
          const double dt = std::chrono::duration<double>(now - last_t).count();
          const double rate = dt > 0 ? static_cast<double>(fabric_->events() - last_events) / dt : 0;
          last_events = fabric_->events();
          last_t = now;
          std::fprintf(stderr, "\rnetasic: sim %.3f us | flows %llu/%zu done | %.2f M events/s | wall %.0f s   ",
                       ps_to_ns(fabric_->now()) / 1000.0, static_cast<unsigned long long>(flows_.completed()),
                       flows_.size(), rate / 1e6, std::chrono::duration<double>(now - t0).count());
          std::fflush(stderr);
        }
      },
      std::min(options.progress_interval_s, 0.1));
  sc_core::sc_start();
  wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  end_time_ = fabric_->now();
  if (options.progress && wall_seconds_ >= options.progress_interval_s) std::fprintf(stderr, "\n");
}

// Progress watchdog (sim.stall_timeout_us): flows under way, yet no byte delivered for that long of
// simulated time (every packet lost on a link that drops nearly all, a flow paused forever), stops the run
// instead of letting it go on for ever. Checked from the progress callback, a few times a wall second.
void Simulation::check_stall() {
  if (stall_timeout_ps_ == 0) return;
  const Ps now = fabric_->now();
  std::uint64_t delivered = 0;
  bool under_way = false;
  for (const Flow& f : flows_.flows()) {
    delivered += f.delivered_bytes;
    under_way |= f.start <= now && !f.done();
  }
  if (delivered != stall_delivered_ || !under_way) {
    stall_delivered_ = delivered;
    stall_since_ = now;
  } else if (now - stall_since_ >= stall_timeout_ps_) {
    stalled_ = true;
    fabric_->request_stop();
  }
}

Ps Simulation::ideal_fct(const Flow& f) const {
  const Topology& t = topology_;
  auto link_at = [&](std::uint32_t node, std::uint16_t port) -> const TopoLink& {
    return t.links[ports_[node][port].link];
  };
  const TopoLink& first = link_at(t.host_node[f.src], 0);
  const TopoLink& last = link_at(t.host_node[f.dst], 0);
  double prop_ns = first.delay_ns + last.delay_ns;
  double rate = std::min(first.rate_gbps, last.rate_gbps);
  std::uint32_t sw = routing_->host_switch(f.src);
  const std::uint32_t dst_sw = routing_->host_switch(f.dst);
  std::uint32_t switches = 1;
  bool went_down = false;
  while (sw != dst_sw) {
    std::uint32_t n = 0;
    const std::uint16_t port = routing_->up_down() ? routing_->next_hops_updown(sw, dst_sw, went_down, n)[0]
                                                   : routing_->next_hops(sw, dst_sw, n)[0];
    if (routing_->up_down() && !routing_->is_up(sw, port)) went_down = true;
    const TopoLink& l = link_at(t.switch_node[sw], port);
    prop_ns += l.delay_ns;
    rate = std::min(rate, l.rate_gbps);
    sw = routing_->peer(sw, port);
    ++switches;
  }
  const std::uint64_t packets = (f.size_bytes + nic_config_.mtu_bytes - 1) / nic_config_.mtu_bytes;
  const std::uint64_t wire = f.size_bytes + packets * (nic_config_.header_bytes + scenario_.integer("link.overhead_bytes"));
  return ns_to_ps(prop_ns) + switches * switch_latency_ps_ + serialization_ps(wire, rate) + nic_config_.latency_ps;
}

nlohmann::json Simulation::summary() const {
  using nlohmann::json;
  json j;
  j["seed"] = scenario_.integer("sim.seed");
  j["topology"] = topology_.description;
  j["workload"] = workload_.description;
  j["sim_time_ns"] = ps_to_ns(end_time_);
  // The window time-weighted statistics counted (stats.window_*), clipped to the run.
  const TimeWindow& w = fabric_->stats_window();
  j["stats_window_ns"] = {{"start", ps_to_ns(std::min(w.from, end_time_))}, {"end", ps_to_ns(std::min(w.to, end_time_))}};
  j["wall_seconds"] = wall_seconds_;
  j["events"] = fabric_->events();
  j["packet_hops"] = packet_hops();
  j["packet_hops_per_second"] = wall_seconds_ > 0 ? static_cast<double>(packet_hops()) / wall_seconds_ : 0.0;
  j["hit_time_limit"] = fabric_->hit_time_limit();

  // The testbench's own scoreboards, then every mechanism's sections from the components that own them.
  j["flows"] = report_flows(flows_, [this](const Flow& f) { return ideal_fct(f); });
  const NicCounters n = sum_nic_counters(nics_);
  j["packets"] = report_packets(n, flows_, switches_, links_);
  j["bytes"] = report_bytes(n);
  j["links"] = report_links(links_, topology_, end_time_);
  j["ports"] = report_ports(switches_);
  if (throughput_) j["throughput"] = throughput_->report();
  if (!workload_.chakra.empty()) j["chakra"] = chakra_summary(workload_.chakra.front(), flows_);
  if (!workload_.collectives.empty()) j["collectives"] = collective_summary(workload_.collectives, flows_);
  if (!host_ifs_.empty()) j["host_interface"] = host_interface_summary();
  if (fabric_->causal()) j["event_order"] = {{"order", "causal"}, {"window_ns", ps_to_ns(fabric_->window())}};
  if (emulation_) j["parallel"] = emulation_summary(*emulation_);
  Report r(flows_, end_time_);
  report_components(r);
  r.write_sections(j);
  if (trace_)
    j["trace"] = {{"packets", trace_->recorded()},
                  {"max_packets", trace_->max_packets()},
                  {"left_out_over_max_packets", trace_->over_cap()}};
  j["scenario"] = scenario_.to_json();
  return j;
}

// Every component reports, in a fixed order: switches by id, then NICs by host.
void Simulation::report_components(Report& r) const {
  for (const auto& sw : switches_) sw->report(r);
  for (const auto& nic : nics_) nic->report(r);
}

// tables.json: the tables every component reports. Both kinds are always listed (docs/outputs.md), empty
// when no component keeps one.
nlohmann::json Simulation::tables() const {
  Report r(flows_, end_time_);
  r.table("flowcut");
  r.table("flowlet");
  report_components(r);
  return r.tables();
}

nlohmann::json Simulation::component_tables(std::size_t component) const {
  Report r(flows_, end_time_);
  r.table("flowcut");
  r.table("flowlet");
  if (component < switches_.size()) switches_[component]->report(r);
  else nics_.at(component - switches_.size())->report(r);
  return r.tables();
}

std::string Simulation::summary_table() const {
  const nlohmann::json j = summary();
  std::string out;
  auto row = [&out](const std::string& k, const std::string& v) { out += fmt::format("  {:<28} {}\n", k, v); };
  auto us = [](double ns) { return fmt::format("{:.3f} us", ns / 1000.0); };
  out += "netasic run summary\n";
  row("topology", j["topology"].get<std::string>());
  row("workload", j["workload"].get<std::string>());
  row("routing", scenario_.string("routing.policy") + ", " + scenario_.string("link.flow_control"));
  row("seed", std::to_string(j["seed"].get<std::int64_t>()));
  row("simulated time", us(j["sim_time_ns"].get<double>()));
  row("flows completed", fmt::format("{} / {}", j["flows"]["completed"].get<std::uint64_t>(),
                                     j["flows"]["count"].get<std::uint64_t>()));
  const auto& fct = j["flows"]["fct_ns"];
  row("FCT avg / p50", fmt::format("{} / {}", us(fct["avg"]), us(fct["p50"])));
  row("FCT p99 / p99.9 / max", fmt::format("{} / {} / {}", us(fct["p99"]), us(fct["p999"]), us(fct["max"])));
  const auto& sd = j["flows"]["slowdown"];
  row("slowdown avg / p50 / p99", fmt::format("{:.3f} / {:.3f} / {:.3f}", sd["avg"].get<double>(),
                                              sd["p50"].get<double>(), sd["p99"].get<double>()));
  const auto& p = j["packets"];
  row("packets injected / delivered", fmt::format("{} / {}", p["injected"].get<std::uint64_t>(),
                                                  p["delivered"].get<std::uint64_t>()));
  row("packets dropped / resent", fmt::format("{} / {}", p["dropped"].get<std::uint64_t>(),
                                              p["retransmitted"].get<std::uint64_t>()));
  row("out of order", fmt::format("{} ({:.4f}%), max degree {}", p["out_of_order"].get<std::uint64_t>(),
                                  100.0 * p["ooo_fraction"].get<double>(), p["max_ooo_degree"].get<std::uint64_t>()));
  row("bytes injected / delivered", fmt::format("{} / {}", j["bytes"]["injected"].get<std::uint64_t>(),
                                                j["bytes"]["delivered"].get<std::uint64_t>()));
  row("switch-link utilization", fmt::format("avg {:.1f}%, max {:.1f}%",
                                             100.0 * j["links"]["switch_links"]["utilization_avg"].get<double>(),
                                             100.0 * j["links"]["switch_links"]["utilization_max"].get<double>()));
  row("max port queue", fmt::format("{} bytes", j["ports"]["max_queue_bytes"].get<std::uint64_t>()));
  if (j.contains("selective_repeat"))
    row("resent bytes / spurious", fmt::format("{} / {}", j["bytes"]["retransmitted"].get<std::uint64_t>(),
                                               p["spurious_retransmissions"].get<std::uint64_t>()));
  if (j.contains("ecn")) row("CE marks", fmt::format("{}", j["ecn"]["ce_marks"].get<std::uint64_t>()));
  row("events / packet-hops", fmt::format("{} / {}", j["events"].get<std::uint64_t>(),
                                          j["packet_hops"].get<std::uint64_t>()));
  row("wall time", fmt::format("{:.2f} s ({:.2f} M packet-hops/s)", j["wall_seconds"].get<double>(),
                               j["packet_hops_per_second"].get<double>() / 1e6));
  if (j["hit_time_limit"].get<bool>()) out += "  (stopped at sim.max_time_us)\n";
  return out;
}

std::string Simulation::incomplete_report(std::size_t max) const {
  std::string out;
  std::size_t shown = 0;
  for (const Flow& f : flows_.flows()) {
    if (f.done()) continue;
    if (shown++ == max) {
      out += "  ...\n";
      break;
    }
    out += fmt::format("  flow {} host {} -> {}: {} packets; sender next {} acked {}{}, in flight {} B{}; "
                       "receiver expects {}, delivered {} B\n",
                       f.id, f.src, f.dst, f.packets, f.next_psn, f.acked_count,
                       nics_[f.src]->transport().sender_detail(f), f.inflight_bytes,
                       f.paused_since != kNever ? ", paused" : "", f.expected_psn, f.delivered_bytes);
  }
  return out;
}

void Simulation::write_flows_csv(std::ostream& out) const {
  out << "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,slowdown,ooo_packets,path_changes,flowcuts,drains,drain_ns\n";
  for (const Flow& f : flows_.flows()) {
    if (f.done()) {
      const Ps fct = f.finish - f.start;
      out << fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.6f},{},{},{},{},{:.3f}\n", f.id, topology_.owner(f.src),
                         topology_.owner(f.dst), f.size_bytes,
                         ps_to_ns(f.start), ps_to_ns(f.finish), ps_to_ns(fct),
                         static_cast<double>(fct) / static_cast<double>(ideal_fct(f)), f.ooo_packets, f.path_changes,
                         f.flowcuts, f.drains, ps_to_ns(f.drain_ps));
    } else {
      // A flow still waiting for others has no start yet.
      const std::string start = f.start == kNever ? "" : fmt::format("{:.3f}", ps_to_ns(f.start));
      out << fmt::format("{},{},{},{},{},,,,{},{},{},{},{:.3f}\n", f.id, topology_.owner(f.src), topology_.owner(f.dst),
                         f.size_bytes, start,
                         f.ooo_packets, f.path_changes, f.flowcuts, f.drains, ps_to_ns(f.drain_ps));
    }
  }
}

namespace {
// HPCC's address of a node: 11.x.y.1 with x.y the node id in base 256, so its scripts map an address back
// to the node id with (ip >> 8) & 0xffff.
std::uint32_t hpcc_address(std::uint32_t node) { return 0x0b000001u + (node / 256) * 0x10000u + (node % 256) * 0x100u; }
}  // namespace

void Simulation::write_fct_txt(std::ostream& out) const {
  std::vector<const Flow*> done;
  for (const Flow& f : flows_.flows())
    if (f.done()) done.push_back(&f);
  std::stable_sort(done.begin(), done.end(), [](const Flow* a, const Flow* b) { return a->finish < b->finish; });
  // Integer nanoseconds, as HPCC prints its ns-3 time steps: sip dip sport dport size start fct standalone_fct.
  auto ns = [](Ps ps) { return static_cast<unsigned long long>((ps + 500) / 1000); };
  for (const Flow* f : done)
    out << fmt::format("{:08x} {:08x} {} {} {} {} {} {}\n", hpcc_address(topology_.host_node[topology_.owner(f->src)]),
                       hpcc_address(topology_.host_node[topology_.owner(f->dst)]), f->key.src_port, f->key.dst_port, f->size_bytes,
                       ns(f->start), ns(f->finish - f->start), ns(ideal_fct(*f)));
}

void Simulation::write_ports_csv(std::ostream& out) const {
  out << "switch,port,peer,rate_gbps,utilization,max_queue_bytes\n";
  for (std::uint32_t sw = 0; sw < switches_.size(); ++sw) write_port_rows(out, sw);
}

void Simulation::write_port_rows(std::ostream& out, std::uint32_t sw) const {
  const Topology& t = topology_;
  const std::uint32_t node = t.switch_node[sw];
  for (std::uint16_t p = 0; p < ports_[node].size(); ++p) {
    const PortRef& r = ports_[node][p];
    const Link& l = *links_[2 * r.link + (r.forward ? 0 : 1)];
    const std::uint32_t peer = r.forward ? t.links[r.link].b : t.links[r.link].a;
    const double u = end_time_ ? static_cast<double>(l.busy_time()) / static_cast<double>(end_time_) : 0.0;
    out << fmt::format("{},{},{}{},{},{:.6f},{}\n", sw, p, t.is_switch(peer) ? "sw" : "host",
                       t.is_switch(peer) ? t.switch_index[peer]
                                         : static_cast<std::int32_t>(t.owner(static_cast<std::uint32_t>(t.host_index[peer]))),
                       l.rate_gbps(), u, switches_[sw]->max_backlog(p));
  }
}

void Simulation::write_outputs(const std::string& dir) const { write_outputs(OutputDir(dir)); }

// Each file complete under its own name or not at all (OutputDir::write); summary.json last, so a
// directory with a summary has every other result too.
void Simulation::write_outputs(const OutputDir& out) const {
  out.write("flows.csv", [this](std::ostream& f) { write_flows_csv(f); });
  out.write("ports.csv", [this](std::ostream& f) { write_ports_csv(f); });
  out.write("fct.txt", [this](std::ostream& f) { write_fct_txt(f); });
  if (series_) out.write("timeseries.csv", [this](std::ostream& f) { series_->write_csv(f); });
  if (!workload_.collectives.empty() || !workload_.chakra.empty())
    out.write("collective_steps.csv",
              [this](std::ostream& f) { write_collective_steps(f, workload_.collectives, flows_, topology_); });
  if (trace_) {
    out.write("trace.json", [this](std::ostream& f) { trace_->write_json(f); });
    out.write("packets.pcap", [this](std::ostream& f) { trace_->write_pcap(f); });
  }
  out.write("tables.json", [this](std::ostream& f) { f << tables().dump(2) << "\n"; });
  out.write("summary.json", [this](std::ostream& f) { f << summary().dump(2) << "\n"; });
}

}  // namespace netasic
