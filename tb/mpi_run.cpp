#include "tb/mpi_run.h"

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sstream>
#include <unordered_set>

#include "tb/launch_ranks.h"
#include "tb/output_dir.h"
#include "tb/partition.h"
#include "tb/report.h"
#include "tb/scenario.h"
#include "tb/simulation.h"
#include "tb/topology.h"
#include "tlm/common/error.h"
#include "tlm/common/log.h"

namespace netasic {

namespace {

// What a run across processes cannot do yet (each shares state between hosts without a link between them, or
// needs SystemC processes of its own): InputError naming the key.
void refuse_unsupported(const Scenario& s) {
  auto refuse = [](const std::string& what) {
    throw InputError(fmt::format("a run across processes (mpirun -n N, srun -n N): {}; run it in one process", what));
  };
  if (s.integer("parallel.emulate_ranks") > 0) refuse("parallel.emulate_ranks emulates a partition in one process");
  if (s.boolean("nic.host_interface")) refuse("nic.host_interface starts messages from SystemC processes of its own");
  const std::string& type = s.string("workload.type");
  if (type == "collective" || type == "jobs" || type == "chakra")
    refuse(fmt::format("workload.type = {} starts flows at some hosts when flows at others complete", type));
  if (s.string("workload.pattern") != "none") refuse("workload.pattern samples the throughput of every flow");
  if (s.boolean("trace.enabled")) refuse("trace.enabled records every traced packet in one list");
  if (s.number("stats.sample_us") > 0) refuse("stats.sample_us samples every switch into one time series");
  if (s.string("cosim.trace") != "off") refuse("cosim.trace writes the waveforms of one process");
  if (s.string("routing.policy") == "flowcut" && s.string("flowcut.variant") == "nic_only")
    refuse("flowcut.variant = nic_only: the source NIC rewrites the flow's key, which the destination NIC reads");
}

// Appends the bytes of `v` (a trivially copyable record) to `b`.
template <class T>
void append(std::vector<char>& b, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  b.insert(b.end(), p, p + sizeof(T));
}

// The frames and credit returns crossing the cut links, and the window agreement (docs/parallel.md).
class Exchange final : public LinkCut, public WindowListener {
 public:
  Exchange(Simulation& sim, const Partition& p, int rank) : sim_(sim), p_(p), rank_(rank), out_(p.ranks) {
    const Topology& t = sim.topology();
    for (std::uint32_t i : p.cut)
      for (std::size_t dir = 0; dir < 2; ++dir) sim.links()[2 * std::size_t{i} + dir]->set_cut(this);
    for (const Flow& f : sim.flows().flows())
      if (p.rank_of[t.host_node[f.dst]] == static_cast<std::uint32_t>(rank)) ++local_flows_;
    sim.fabric().set_window_listener(this);
    keep_own_events();
  }

  void deliver(Link& link, Packet* p, Ps head, const CausalContext& ctx) override {
    std::vector<char>& b = out_[end_rank(link, true)];
    append(b, std::uint8_t{1});
    append(b, link.index());
    append(b, head);
    append(b, ctx);
    append(b, *p);
    sim_.fabric().pool().put(p);
    ++frames_;
  }
  void credit(Link& link, Ps at, std::uint8_t vc, std::uint32_t bytes) override {
    std::vector<char>& b = out_[end_rank(link, false)];
    append(b, std::uint8_t{2});
    append(b, link.index());
    append(b, at);
    append(b, bytes);
    append(b, vc);
    ++credits_;
  }
  void end_window(Ps) override;
  Ps next_window(Ps local_next, bool& stop) override;

  std::uint64_t windows() const { return windows_; }
  double sync_seconds() const { return sync_s_; }
  std::uint64_t frames() const { return frames_; }
  std::uint64_t credits() const { return credits_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  // The rank of a link's receiver (`to_receiver`) or of its sender.
  std::uint32_t end_rank(const Link& link, bool to_receiver) const {
    const TopoLink& l = sim_.topology().links[link.index() / 2];
    const bool forward = link.index() % 2 == 0;
    return p_.rank_of[(forward == to_receiver) ? l.b : l.a];
  }
  template <class T>
  static T take(const char*& at) {
    T v;
    std::memcpy(static_cast<void*>(&v), at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  void keep_own_events();
  void apply(const char* at, const char* end);

  Simulation& sim_;
  const Partition& p_;
  int rank_;
  std::vector<std::vector<char>> out_;  // per destination rank, this window
  std::uint64_t local_flows_ = 0;       // flows whose destination this rank runs (it completes them)
  std::uint64_t windows_ = 0, frames_ = 0, credits_ = 0, bytes_ = 0;
  double sync_s_ = 0;  // wall time in the window's exchange and reduction, waiting for the other ranks included
};

// Times a window's exchange or reduction into sync_s_.
class SyncTimer {
 public:
  explicit SyncTimer(double& total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~SyncTimer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  SyncTimer(const SyncTimer&) = delete;
  SyncTimer& operator=(const SyncTimer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_;
};

// Setup scheduled the first events of every component on every rank: keep those of this rank's switches, NICs
// and links (a link's events are its sender's).
void Exchange::keep_own_events() {
  const Topology& t = sim_.topology();
  std::unordered_set<const EventTarget*> mine, others;
  const auto here = static_cast<std::uint32_t>(rank_);
  for (std::uint32_t sw = 0; sw < sim_.switches().size(); ++sw)
    (p_.rank_of[t.switch_node[sw]] == here ? mine : others).insert(sim_.switches()[sw].get());
  for (std::uint32_t h = 0; h < sim_.nics().size(); ++h)
    (p_.rank_of[t.host_node[h]] == here ? mine : others).insert(sim_.nics()[h].get());
  for (const auto& link : sim_.links()) (end_rank(*link, false) == here ? mine : others).insert(link.get());
  sim_.fabric().retain_events([&](const EventTarget* target) {
    if (mine.count(target)) return true;
    if (others.count(target)) return false;
    throw ModelError("a run across processes: an event at setup for a component that is no switch, NIC or link");
  });
}

void Exchange::end_window(Ps) {
  const SyncTimer timer(sync_s_);
  ++windows_;
  const int n = static_cast<int>(out_.size());
  std::vector<int> send(n), recv(n), send_at(n), recv_at(n);
  std::vector<char> sendbuf;
  for (int r = 0; r < n; ++r) {
    send[r] = static_cast<int>(out_[r].size());
    send_at[r] = static_cast<int>(sendbuf.size());
    sendbuf.insert(sendbuf.end(), out_[r].begin(), out_[r].end());
    out_[r].clear();
  }
  bytes_ += sendbuf.size();
  MPI_Alltoall(send.data(), 1, MPI_INT, recv.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < n; ++r) {
    recv_at[r] = total;
    total += recv[r];
  }
  std::vector<char> recvbuf(static_cast<std::size_t>(total));
  MPI_Alltoallv(sendbuf.data(), send.data(), send_at.data(), MPI_BYTE, recvbuf.data(), recv.data(), recv_at.data(),
                MPI_BYTE, MPI_COMM_WORLD);
  apply(recvbuf.data(), recvbuf.data() + recvbuf.size());
}

// What the other ranks handed over: credit returns into their links' rings (in the order made: each link's
// come from one rank, in order), frames to their receivers.
void Exchange::apply(const char* at, const char* end) {
  while (at < end) {
    const auto type = take<std::uint8_t>(at);
    Link& link = *sim_.links().at(take<std::uint32_t>(at));
    if (type == 2) {
      const Ps when = take<Ps>(at);
      const auto bytes = take<std::uint32_t>(at);
      link.absorb_credit(when, take<std::uint8_t>(at), bytes);
      continue;
    }
    const Ps head = take<Ps>(at);
    const auto ctx = take<CausalContext>(at);
    Packet* p = sim_.fabric().pool().get();
    *p = take<Packet>(at);
    p->next = nullptr;
    link.deliver_held(p, head, ctx);
  }
}

// One reduction (MIN) per window: the earliest event anywhere, whether no rank asked to stop, whether every
// rank has completed the flows it receives (then the run is over, as in one process when the last completes).
Ps Exchange::next_window(Ps local_next, bool& stop) {
  const SyncTimer timer(sync_s_);
  std::uint64_t v[3] = {local_next, stop ? 0u : 1u, sim_.flows().completed() >= local_flows_ ? 1u : 0u};
  std::uint64_t g[3];
  MPI_Allreduce(v, g, 3, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  stop = g[1] == 0 || (g[2] == 1 && sim_.flows().size() > 0);
  return g[0];
}

}  // namespace

namespace {

// Every rank's `mine`, on rank 0 (one buffer per rank, in rank order); empty elsewhere.
std::vector<std::vector<char>> gather(const std::vector<char>& mine, int rank, int size) {
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), at(static_cast<std::size_t>(size));
  MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    at[r] = total;
    total += counts[r];
  }
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  std::vector<std::vector<char>> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r) out.emplace_back(all.begin() + at[r], all.begin() + at[r] + counts[r]);
  return out;
}

void append_text(std::vector<char>& b, std::uint32_t key, const std::string& text) {
  append(b, key);
  append(b, static_cast<std::uint32_t>(text.size()));
  b.insert(b.end(), text.begin(), text.end());
}
// (key, text) records of append_text, from every rank, by key (a key appears once over all ranks).
std::vector<std::string> by_key(const std::vector<std::vector<char>>& parts, std::size_t keys) {
  std::vector<std::string> out(keys);
  for (const auto& part : parts)
    for (const char* at = part.data(); at < part.data() + part.size();) {
      std::uint32_t key, len;
      std::memcpy(&key, at, 4);
      std::memcpy(&len, at + 4, 4);
      out.at(key).assign(at + 8, len);
      at += 8 + len;
    }
  return out;
}

// The flow records: every field from the rank that writes it. The source's rank has the sender's fields and
// the ingress switch's (path changes, flowcuts, drains); the destination's rank the receiver's.
void gather_flows(Simulation& sim, const Partition& p, int rank, int size) {
  const Topology& t = sim.topology();
  std::vector<char> src, dst;
  for (const Flow& f : sim.flows().flows()) {
    if (p.rank_of[t.host_node[f.src]] == static_cast<std::uint32_t>(rank)) append(src, f);
    if (p.rank_of[t.host_node[f.dst]] == static_cast<std::uint32_t>(rank)) append(dst, f);
  }
  const auto srcs = gather(src, rank, size), dsts = gather(dst, rank, size);
  if (rank != 0) return;
  FlowTable& table = sim.merged_flows();
  auto each = [](const std::vector<std::vector<char>>& parts, auto use) {
    for (const auto& part : parts)
      for (std::size_t at = 0; at + sizeof(Flow) <= part.size(); at += sizeof(Flow)) {
        Flow f;
        std::memcpy(static_cast<void*>(&f), part.data() + at, sizeof(Flow));
        use(f);
      }
  };
  each(srcs, [&](const Flow& f) { table[f.id] = f; });
  each(dsts, [&](const Flow& f) {
    Flow& m = table[f.id];
    m.rx_slot = f.rx_slot;
    m.expected_psn = f.expected_psn;
    m.delivered_bytes = f.delivered_bytes;
    m.ooo_packets = f.ooo_packets;
    m.late_packets = f.late_packets;
    m.highest_psn = f.highest_psn;
    m.max_ooo_degree = f.max_ooo_degree;
    m.duplicates = f.duplicates;
    m.finish = f.finish;
    m.tm_rx_delay_ns = f.tm_rx_delay_ns;
    m.tm_rx_port = f.tm_rx_port;
  });
  table.recount_completed();
}

// What rank 0 writes: ports.csv's rows and tables.json's entries, each from the rank that runs the component.
struct Gathered {
  std::string ports_csv;
  nlohmann::json tables;
};

Gathered gather_components(const Simulation& sim, const Partition& p, int rank, int size) {
  const Topology& t = sim.topology();
  const auto here = static_cast<std::uint32_t>(rank);
  const std::size_t switches = sim.switches().size(), components = switches + sim.nics().size();
  std::vector<char> rows, tables;
  for (std::uint32_t c = 0; c < components; ++c) {
    const std::uint32_t node = c < switches ? t.switch_node[c] : t.host_node[c - switches];
    if (p.rank_of[node] != here) continue;
    if (c < switches) {
      std::ostringstream o;
      sim.write_port_rows(o, c);
      append_text(rows, c, o.str());
    }
    append_text(tables, c, sim.component_tables(c).dump());
  }
  const auto all_rows = gather(rows, rank, size), all_tables = gather(tables, rank, size);
  Gathered g;
  if (rank != 0) return g;
  g.ports_csv = "switch,port,peer,rate_gbps,utilization,max_queue_bytes\n";
  for (const std::string& r : by_key(all_rows, switches)) g.ports_csv += r;
  g.tables = {{"flowcut", nlohmann::json::array()}, {"flowlet", nlohmann::json::array()}};
  for (const std::string& text : by_key(all_tables, components)) {
    const nlohmann::json part = nlohmann::json::parse(text);
    for (const auto& [kind, entries] : part.items())
      for (const auto& e : entries) g.tables[kind].push_back(e);
  }
  return g;
}

}  // namespace

namespace {

// summary.json's packets, bytes, links and ports sections over every rank. A component runs on one rank only and
// its counters stay zero on the others, so sums (and maxima) over the ranks of each rank's own totals are the
// fabric's. Empty on ranks other than 0.
nlohmann::json counter_sections(const Simulation& sim, int rank) {
  const NicCounters n = sum_nic_counters(sim.nics());
  std::uint64_t drops = 0, corrupted = 0, max_queue = 0;
  for (const auto& sw : sim.switches()) {
    drops += sw->counters().packets_dropped;
    for (std::uint16_t p = 0; p < sw->radix(); ++p) max_queue = std::max(max_queue, sw->max_backlog(p));
  }
  std::vector<Ps> busy;
  for (const auto& l : sim.links()) {
    corrupted += l->corrupted();
    busy.push_back(l->busy_time());
  }
  std::uint64_t sums[] = {n.data_packets_sent, n.data_payload_sent, n.control_packets_sent, n.data_packets_received,
                          n.payload_delivered, n.ooo_packets, n.late_packets, n.duplicates, n.control_dropped,
                          n.app_out_of_order, n.resent_bytes, n.spurious_resends, drops, corrupted};
  std::uint64_t maxima[] = {n.max_ooo_degree, max_queue};
  constexpr int kSums = std::size(sums), kMaxima = std::size(maxima);
  std::uint64_t s[kSums], m[kMaxima];
  std::vector<Ps> all_busy(busy.size());
  MPI_Reduce(sums, s, kSums, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(maxima, m, kMaxima, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(busy.data(), all_busy.data(), static_cast<int>(busy.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return {};
  NicCounters g{};
  std::uint64_t* fields[] = {&g.data_packets_sent, &g.data_payload_sent, &g.control_packets_sent,
                             &g.data_packets_received, &g.payload_delivered, &g.ooo_packets, &g.late_packets,
                             &g.duplicates, &g.control_dropped, &g.app_out_of_order, &g.resent_bytes,
                             &g.spurious_resends};
  for (std::size_t i = 0; i < std::size(fields); ++i) *fields[i] = s[i];
  g.max_ooo_degree = static_cast<std::uint32_t>(m[0]);
  nlohmann::json j;
  j["packets"] = report_packets(g, sim.flows(), sim.switches(), sim.links());
  const std::uint64_t all_drops = s[kSums - 2], all_corrupted = s[kSums - 1];
  j["packets"]["dropped"] = all_drops + all_corrupted;
  j["packets"]["dropped_by_switches"] = all_drops;
  j["packets"]["corrupted_on_links"] = all_corrupted;
  j["bytes"] = report_bytes(g);
  j["links"] = report_links(all_busy, sim.topology(), sim.sim_time());
  j["ports"] = {{"max_queue_bytes", m[1]}};
  return j;
}

struct RunTotals {
  std::uint64_t events = 0, hops = 0, frames = 0, credits = 0, bytes = 0;  // summed over the ranks (5 words)
  double sync_min_s = 0, sync_max_s = 0;  // time in the windows' exchanges and reductions, least and most
};

// summary.json of a run across processes: what one process would write, less the sections the components'
// own counters make (each rank has only its own; listed under parallel.left_out), plus the partition and the
// exchange.
nlohmann::json parallel_summary(const Simulation& sim, const Partition& p, const Exchange& ex, const RunTotals& sum,
                                const nlohmann::json& counters) {
  nlohmann::json j = sim.summary();
  for (const auto& [key, section] : counters.items()) j[key] = section;
  j["events"] = sum.events;
  j["packet_hops"] = sum.hops;
  j["packet_hops_per_second"] = sim.wall_seconds() > 0 ? static_cast<double>(sum.hops) / sim.wall_seconds() : 0.0;
  static const std::unordered_set<std::string> kept = {
      "seed", "topology", "workload", "sim_time_ns", "stats_window_ns", "wall_seconds", "events", "packet_hops",
      "packet_hops_per_second", "hit_time_limit", "flows", "packets", "bytes", "links", "ports", "event_order",
      "scenario"};
  nlohmann::json left_out = nlohmann::json::array();
  for (auto it = j.begin(); it != j.end();) {
    if (kept.count(it.key())) {
      ++it;
      continue;
    }
    left_out.push_back(it.key());
    it = j.erase(it);
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankLoad& l : p.load)
    ranks.push_back({{"hosts", l.hosts}, {"switches", l.switches}, {"links", l.links}, {"cut_links", l.cut_links}});
  j["parallel"] = {{"ranks", p.ranks},
                   {"partition", to_string(p.rule)},
                   {"cut_links", p.cut.size()},
                   {"load", ranks},
                   {"window_ns", ps_to_ns(sim.fabric().window())},
                   {"windows", ex.windows()},
                   {"frames_exchanged", sum.frames},
                   {"credit_returns_exchanged", sum.credits},
                   {"bytes_exchanged", sum.bytes},
                   {"sync_seconds", {{"min", sum.sync_min_s}, {"max", sum.sync_max_s}}},
                   {"left_out", left_out}};
  return j;
}

// After the run: the end time over every rank, the flow records and the components' rows gathered to rank 0,
// which writes the outputs. Returns the exit status (rank 0's is the one that counts).
int finish_parallel_run(Simulation& sim, const Partition& p, const Exchange& ex, int rank, int size,
                        const OutputDir& out) {
  Ps end = sim.fabric().now(), global_end = 0;
  MPI_Allreduce(&end, &global_end, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  sim.set_end_time(global_end);
  RunTotals mine;
  mine.events = sim.fabric().events();
  const Topology& t = sim.topology();
  for (const auto& link : sim.links()) {
    const TopoLink& l = t.links[link->index() / 2];
    if (p.rank_of[link->index() % 2 == 0 ? l.a : l.b] == static_cast<std::uint32_t>(rank)) mine.hops += link->packets_sent();
  }
  mine.frames = ex.frames();
  mine.credits = ex.credits();
  mine.bytes = ex.bytes();
  RunTotals sum;
  MPI_Reduce(&mine, &sum, 5, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  const double sync = ex.sync_seconds();
  double sync_range[2] = {sync, -sync}, sync_all[2];
  MPI_Reduce(sync_range, sync_all, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  sum.sync_max_s = sync_all[0];
  sum.sync_min_s = -sync_all[1];
  gather_flows(sim, p, rank, size);
  const Gathered g = gather_components(sim, p, rank, size);
  const nlohmann::json counters = counter_sections(sim, rank);
  if (rank != 0) return 0;
  out.write("flows.csv", [&](std::ostream& f) { sim.write_flows_csv(f); });
  out.write("ports.csv", [&](std::ostream& f) { f << g.ports_csv; });
  out.write("fct.txt", [&](std::ostream& f) { sim.write_fct_txt(f); });
  out.write("tables.json", [&](std::ostream& f) { f << g.tables.dump(2) << "\n"; });
  const nlohmann::json j = parallel_summary(sim, p, ex, sum, counters);
  out.write("summary.json", [&](std::ostream& f) { f << j.dump(2) << "\n"; });
  out.finish();
  const FlowTable& flows = sim.flows();
  std::cout << fmt::format(
      "netasic run summary ({} processes, partition by {}, {} windows of {:.3f} ns)\n"
      "  topology                     {}\n  simulated time               {:.3f} us\n"
      "  flows completed              {} / {}\n  events / packet-hops         {} / {}\n"
      "  wall time                    {:.2f} s\n  outputs                      {}/summary.json, flows.csv, fct.txt, "
      "ports.csv, tables.json\n",
      size, to_string(p.rule), ex.windows(), ps_to_ns(sim.fabric().window()), j["topology"].get<std::string>(),
      ps_to_ns(global_end) / 1000.0, flows.completed(), flows.size(), sum.events, sum.hops, sim.wall_seconds(),
      out.path());
  if (flows.completed() < flows.size() && !sim.fabric().hit_time_limit()) {
    std::cerr << fmt::format("netasic: the run ended with {} of {} flows incomplete and no events left (deadlock or "
                             "lost packets); see {}/flows.csv\n",
                             flows.size() - flows.completed(), flows.size(), out.path());
    return 3;
  }
  return 0;
}

}  // namespace

namespace {

struct MpiSession {
  int rank = 0, size = 1;
  MpiSession() {
    MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The scenario as every rank reads it (bad input fails the same way on each), in the causal order.
Scenario parallel_scenario(const std::string& scenario_path, const std::vector<std::string>& sets,
                           const std::string* seed) {
  Scenario s;
  if (!scenario_path.empty()) s.load_yaml_file(scenario_path);
  for (const auto& a : sets) s.set_assignment(a);
  if (seed != nullptr) s.set("sim.seed", *seed, "--seed");
  refuse_unsupported(s);
  s.set("sim.event_order", "causal", "a run across processes");
  // The progress watchdog reads every flow; each rank has only its own hosts' side of them.
  if (s.number("sim.stall_timeout_us") > 0) {
    log(LogLevel::info, "a run across processes: sim.stall_timeout_us is not applied (each rank sees only its own "
                        "hosts' flows); the run ends when no rank has an event left");
    s.set("sim.stall_timeout_us", "0", "a run across processes");
  }
  return s;
}

}  // namespace

int mpi_run_command(const std::string& scenario_path, const std::vector<std::string>& sets, const std::string* seed,
                    const std::string& out_dir, bool progress) {
  MpiSession mpi;
  const LaunchedAs launched = launched_as();
  if (mpi.size != launched.processes) {
    // Another MPI's launcher: each process would be a run of its own, writing the same outputs.
    if (launched.rank == 0)
      std::cerr << fmt::format("netasic: error: run: started as {} processes together ({}={}), but the MPI library "
                               "netasic was built with sees {}: start it with that library's launcher (Debian's "
                               "OpenMPI mpirun, or srun --mpi=pmix under Slurm). docs/parallel.md\n",
                               launched.processes, launched.variable, launched.processes, mpi.size);
    return 2;
  }
  // Bad input: every rank finds it at the same point, before any message; the first says so.
  std::unique_ptr<Simulation> sim;
  std::unique_ptr<OutputDir> out;
  Partition partition;
  try {
    const Scenario s = parallel_scenario(scenario_path, sets, seed);
    partition = partition_fabric(build_topology(s), static_cast<std::uint32_t>(mpi.size),
                                 s.choice<PartitionRule>("parallel.partition"), 64);
    out = std::make_unique<OutputDir>(out_dir);
    out->check_inputs(scenario_path, s);
    sim = std::make_unique<Simulation>(s);
  } catch (const InputError& e) {
    if (mpi.rank == 0) std::cerr << "netasic: error: " << e.what() << "\n";
    return 2;
  }
  // From here a failure on one rank stops them all, with that rank's message.
  try {
    Exchange exchange(*sim, partition, mpi.rank);
    install_interrupt_handlers();
    if (mpi.rank == 0) out->begin();
    RunOptions opts;
    opts.progress = progress && mpi.rank == 0;
    sim->run(opts);
    // SIGINT or SIGTERM on any rank stopped every rank at the same window: no results, as in one process.
    int sig = sim->interrupted() ? interrupt_signal() : 0, any = 0;
    MPI_Allreduce(&sig, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any != 0) {
      const double at_us = static_cast<double>(sim->sim_time()) / 1e6;
      const char* name = any == SIGINT ? "SIGINT" : any == SIGTERM ? "SIGTERM" : "a signal";
      if (mpi.rank == 0) {
        out->interrupted(name, at_us);
        std::cerr << fmt::format("netasic: interrupted by {} at simulated time {:.3f} us; {}/INTERRUPTED says so, no "
                                 "results written\n",
                                 name, at_us, out->path());
      }
      return 128 + any;
    }
    return finish_parallel_run(*sim, partition, exchange, mpi.rank, mpi.size, *out);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("netasic: error: rank {} of {}: {}\n", mpi.rank, mpi.size, e.what());
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, dynamic_cast<const InputError*>(&e) ? 2 : 1);
    return 1;
  }
}

}  // namespace netasic
