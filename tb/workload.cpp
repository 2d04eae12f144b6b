#include "tb/workload.h"
#include "tb/workload_jobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tb/choices.h"
#include "tb/inputs/cdf.h"
#include "tb/inputs/flow_file.h"
#include "tb/workload_telemetry.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {

namespace {

double host_rate_gbps(const Topology& t, std::uint32_t host) {
  const std::uint32_t node = t.host_node[host];
  for (const auto& l : t.links)
    if (l.a == node || l.b == node) return l.rate_gbps * l.scale;
  return 0;
}

// A flow's packet count and PSNs are 32-bit in the model (Flow::packets, tlm/model/flow.h) and 2^32 - 1 is
// kept free, so a larger flow would wrap and "complete" after a fraction of its bytes.
constexpr std::uint64_t kMaxFlowPackets = 0xFFFFFFFEull;

// InputError "<what>: <bytes> bytes are <n> packets of nic.mtu_bytes ..." when a flow of `bytes` does not fit.
void check_flow_packets(const std::string& what, std::uint64_t bytes, std::uint64_t mtu) {
  const std::uint64_t packets = bytes / mtu + (bytes % mtu != 0 ? 1 : 0);
  if (packets <= kMaxFlowPackets) return;
  throw InputError(fmt::format("{}: a flow of {} bytes is {} packets of nic.mtu_bytes = {}; the model counts a "
                               "flow's packets in 32 bits: at most {} packets ({} bytes at this MTU)",
                               what, bytes, packets, mtu, kMaxFlowPackets, kMaxFlowPackets * mtu));
}

// What every generator draws on: the run's hosts, the fixed flow size and class, and one random stream
// (drawn in generation order, so each generator consumes it exactly as before the split).
struct Gen {
  const Scenario& s;
  const Topology& t;
  std::uint32_t hosts;
  std::uint64_t size;
  std::uint8_t tclass;
  Rng& rng;
  Workload& w;
};

void permutation(Gen& g) {
  const std::uint32_t hosts = g.hosts;
  const auto size = g.size;
  const auto tclass = g.tclass;
  Rng& rng = g.rng;
  Workload& w = g.w;
  // A random derangement (Sattolo's algorithm gives a single cycle: nobody sends to itself, everybody
  // receives from exactly one host).
  std::vector<std::uint32_t> perm(hosts);
  std::iota(perm.begin(), perm.end(), 0);
  for (std::uint32_t i = hosts - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i)]);
  for (std::uint32_t h = 0; h < hosts; ++h) w.flows.push_back(FlowSpec{h, perm[h], size, 0, tclass, 4791});
  w.description = fmt::format("permutation, {} flows of {} bytes", hosts, size);
}

void all_to_all(Gen& g) {
  const std::uint32_t hosts = g.hosts;
  const auto size = g.size;
  const auto tclass = g.tclass;
  Workload& w = g.w;
  for (std::uint32_t src = 0; src < hosts; ++src)
    for (std::uint32_t k = 1; k < hosts; ++k)
      w.flows.push_back(FlowSpec{src, (src + k) % hosts, size, 0, tclass, 4791});
  w.description = fmt::format("all-to-all, {} flows of {} bytes", w.flows.size(), size);
}

void incast(Gen& g) {
  const Scenario& s = g.s;
  const std::uint32_t hosts = g.hosts;
  const auto size = g.size;
  const auto tclass = g.tclass;
  Rng& rng = g.rng;
  Workload& w = g.w;
  const auto dst = static_cast<std::uint32_t>(s.integer("workload.incast.destination"));
  const auto senders = static_cast<std::uint32_t>(s.integer("workload.incast.senders"));
  if (dst >= hosts)
    throw InputError(fmt::format("workload.incast.destination = {}: the topology has hosts 0..{}", dst, hosts - 1));
  if (senders >= hosts)
    throw InputError(fmt::format("workload.incast.senders = {}: at most {} (hosts other than the destination)",
                                 senders, hosts - 1));
  std::vector<std::uint32_t> others;
  for (std::uint32_t h = 0; h < hosts; ++h)
    if (h != dst) others.push_back(h);
  for (std::uint32_t i = 0; i < senders; ++i) {
    std::swap(others[i], others[i + rng.below(others.size() - i)]);
    w.flows.push_back(FlowSpec{others[i], dst, size, 0, tclass, 4791});
  }
  w.description = fmt::format("incast {}-to-1 into host {}, {} bytes each", senders, dst, size);
}

// uniform and bit_reversal.
void poisson_fixed_size(Gen& g) {
  const Scenario& s = g.s;
  const Topology& t = g.t;
  const std::uint32_t hosts = g.hosts;
  const auto size = g.size;
  const auto tclass = g.tclass;
  Rng& rng = g.rng;
  Workload& w = g.w;
  const bool reversal = g.s.choice<WorkloadType>("workload.type") == WorkloadType::bit_reversal;
  // Fixed-size messages with Poisson arrivals at the target load (the traffic of Martinez et al.).
  const double load = s.number("workload.load");
  const Ps window = static_cast<Ps>(s.number("workload.duration_us") * kPsPerUs);
  unsigned bits = 0;
  while ((1u << bits) < hosts) ++bits;
  if (reversal && (1u << bits) != hosts)
    throw InputError(fmt::format("workload.type = bit_reversal needs a power-of-two number of hosts; the topology has {}",
                                 hosts));
  for (std::uint32_t src = 0; src < hosts; ++src) {
    std::uint32_t fixed_dst = 0;
    for (unsigned b = 0; b < bits; ++b)
      if (src & (1u << b)) fixed_dst |= 1u << (bits - 1 - b);
    if (reversal && fixed_dst == src) continue;  // palindromic indices send nothing
    const double mean_gap_ps = static_cast<double>(size) / (load * host_rate_gbps(t, src) / 8000.0);
    double at = 0;
    for (;;) {
      at += -std::log(1.0 - rng.uniform()) * mean_gap_ps;
      if (at >= static_cast<double>(window)) break;
      std::uint32_t dst = fixed_dst;
      if (!reversal) {
        dst = static_cast<std::uint32_t>(rng.below(hosts - 1));
        if (dst >= src) ++dst;
      }
      w.flows.push_back(FlowSpec{src, dst, size, static_cast<Ps>(at), tclass, 4791});
    }
  }
  w.description = fmt::format("{} traffic, {} B messages, load {}, {} us: {} flows",
                               reversal ? "bit_reversal" : "uniform", size, load,
                               s.number("workload.duration_us"), w.flows.size());
}

void incast_mix(Gen& g, Ps window) {
  const Scenario& s = g.s;
  const Topology& t = g.t;
  const std::uint32_t hosts = g.hosts;
  const auto tclass = g.tclass;
  Rng& rng = g.rng;
  Workload& w = g.w;
  // Incast bursts on top (FlowSail's evaluation): Poisson bursts, each `degree` random senders to one
  // random host, sizes uniform in [min, max], carrying `incast_mix.load` of the hosts' total capacity.
  const double incast_load = s.number("workload.incast_mix.load");
  if (incast_load > 0) {
    const auto degree = static_cast<std::uint32_t>(s.integer("workload.incast_mix.degree"));
    const auto lo = static_cast<std::uint64_t>(s.integer("workload.incast_mix.min_bytes"));
    const auto hi = static_cast<std::uint64_t>(s.integer("workload.incast_mix.max_bytes"));
    if (degree > hosts - 1)
      throw InputError(fmt::format("workload.incast_mix.degree = {}: at most {} (hosts other than the receiver)",
                                   degree, hosts - 1));
    if (lo > hi)
      throw InputError(fmt::format("workload.incast_mix.min_bytes = {} is above workload.incast_mix.max_bytes = {}",
                                   lo, hi));
    check_flow_packets("workload.incast_mix.max_bytes", hi, static_cast<std::uint64_t>(s.integer("nic.mtu_bytes")));
    double capacity = 0;  // bytes per ps, every host link
    for (std::uint32_t h = 0; h < hosts; ++h) capacity += host_rate_gbps(t, h) / 8000.0;
    const double mean_gap_ps = static_cast<double>(degree) * static_cast<double>(lo + hi) / 2.0 / (incast_load * capacity);
    std::vector<std::uint32_t> pool(hosts);
    std::uint64_t bursts = 0;
    for (double at = 0;;) {
      at += -std::log(1.0 - rng.uniform()) * mean_gap_ps;
      if (at >= static_cast<double>(window)) break;
      const auto dst = static_cast<std::uint32_t>(rng.below(hosts));
      for (std::uint32_t h = 0; h < hosts; ++h) pool[h] = h;
      std::swap(pool[dst], pool[hosts - 1]);  // the receiver is not a sender
      for (std::uint32_t k = 0; k < degree; ++k) {
        const auto pick = k + static_cast<std::uint32_t>(rng.below(hosts - 1 - k));
        std::swap(pool[k], pool[pick]);
        const std::uint64_t size = lo + static_cast<std::uint64_t>(rng.uniform() * static_cast<double>(hi - lo));
        w.flows.push_back(FlowSpec{pool[k], dst, size, static_cast<Ps>(at), tclass, 4791});
      }
      ++bursts;
    }
    w.description += fmt::format(", plus {} incast bursts of {} senders ({:.0f}% of host capacity)", bursts, degree,
                                 incast_load * 100);
  }
}

void random_partners(Gen& g) {
  const Scenario& s = g.s;
  const Topology& t = g.t;
  const std::uint32_t hosts = g.hosts;
  const auto tclass = g.tclass;
  Rng& rng = g.rng;
  Workload& w = g.w;
  const FlowSizeCdf cdf = [&] {
    try {
      return FlowSizeCdf::from_spec(s.string("workload.cdf"));
    } catch (const InputError& e) {
      // A file's own errors name the file and line; a name that is neither a built-in nor a file gets its key.
      const std::string m = e.what();
      if (m.rfind(s.string("workload.cdf") + ":", 0) == 0) throw;
      throw InputError(fmt::format("workload.cdf ({}): {}", s.origin("workload.cdf"), m));
    }
  }();
  check_flow_packets(fmt::format("workload.cdf = {}: its largest size", s.string("workload.cdf")), cdf.max_bytes(),
                     static_cast<std::uint64_t>(s.integer("nic.mtu_bytes")));
  const double load = s.number("workload.load");
  const Ps window = static_cast<Ps>(s.number("workload.duration_us") * kPsPerUs);
  for (std::uint32_t src = 0; src < hosts; ++src) {
    // Poisson arrivals: mean gap = mean flow size / (load * host rate).
    const double bytes_per_ps = load * host_rate_gbps(t, src) / 8000.0;
    const double mean_gap_ps = cdf.mean_bytes() / bytes_per_ps;
    double at = 0;
    for (;;) {
      at += -std::log(1.0 - rng.uniform()) * mean_gap_ps;
      if (at >= static_cast<double>(window)) break;
      auto dst = static_cast<std::uint32_t>(rng.below(hosts - 1));
      if (dst >= src) ++dst;
      w.flows.push_back(FlowSpec{src, dst, cdf.sample(rng), static_cast<Ps>(at), tclass, 4791});
    }
  }
  w.description = fmt::format("random partners, {} sizes (mean {:.0f} B), load {}, {} us: {} flows", cdf.name(),
                              cdf.mean_bytes(), load, s.number("workload.duration_us"), w.flows.size());
  incast_mix(g, window);
}

void from_flow_file(Gen& g) {
  const Scenario& s = g.s;
  const Topology& t = g.t;
  Workload& w = g.w;
  const std::string& path = s.string("workload.file");
  if (path.empty()) throw InputError("workload.type is file but workload.file is not set");
  const auto mtu = static_cast<std::uint64_t>(s.integer("nic.mtu_bytes"));
  for (const auto& e : read_flow_file(path)) {
    check_flow_packets(fmt::format("{}:{}: size_bytes", path, e.line), e.size_bytes, mtu);
    for (std::uint32_t node : {e.src, e.dst}) {
      if (node >= t.nodes)
        throw InputError(fmt::format("{}:{}: flow names node {}, the topology has nodes 0..{}", path, e.line, node,
                                     t.nodes - 1));
      if (t.host_index[node] < 0)
        throw InputError(fmt::format("{}:{}: flow names node {}, which is a switch, not a host", path, e.line, node));
    }
    w.flows.push_back(FlowSpec{static_cast<std::uint32_t>(t.host_index[e.src]),
                               static_cast<std::uint32_t>(t.host_index[e.dst]), e.size_bytes,
                               static_cast<Ps>(std::llround(e.start_s * 1e12)), static_cast<std::uint8_t>(std::min<std::uint32_t>(e.priority, 6)),
                               static_cast<std::uint16_t>(e.dport)});
  }
  w.description = fmt::format("flow file {}: {} flows", path, w.flows.size());
}

}  // namespace

namespace {

Workload build_host_workload(const Scenario& s, const Topology& t) {
  Rng rng(static_cast<std::uint64_t>(s.integer("sim.seed")), 0x574B4C44);
  Workload w;
  Gen g{s, t, t.user_hosts(), static_cast<std::uint64_t>(s.integer("workload.size_bytes")),
        static_cast<std::uint8_t>(s.integer("workload.traffic_class")), rng, w};
  const WorkloadType type = s.choice<WorkloadType>("workload.type");
  if (type != WorkloadType::random && type != WorkloadType::file)  // the generators that take workload.size_bytes
    check_flow_packets("workload.size_bytes", g.size, static_cast<std::uint64_t>(s.integer("nic.mtu_bytes")));
  if (build_pattern_workload(s, t, rng, w)) return w;  // workload.pattern: long-lived connections
  switch (type) {
    case WorkloadType::permutation: permutation(g); break;
    case WorkloadType::all_to_all: all_to_all(g); break;
    case WorkloadType::incast: incast(g); break;
    case WorkloadType::uniform:
    case WorkloadType::bit_reversal: poisson_fixed_size(g); break;
    case WorkloadType::random: random_partners(g); break;
    case WorkloadType::file: from_flow_file(g); break;
    case WorkloadType::collective: build_collective(s, t, w); return w;  // in step order, with dependencies
    case WorkloadType::jobs: build_jobs(s, t, w); return w;
    case WorkloadType::chakra: build_chakra(s, t, w); return w;
    case WorkloadType::none:
      if (!s.boolean("nic.host_interface"))
        throw InputError(fmt::format("workload.type = none ({}) needs nic.host_interface = true: without host "
                                     "interfaces the run has no traffic at all", s.origin("workload.type")));
      w.description = "none: the messages of the NICs' host interfaces";
      return w;
  }
  // A flow file may declare 0 flows (docs/input-files.md): the run is empty and ends at once. A generator
  // that makes none was given parameters that cannot mean anything.
  if (w.flows.empty() && type != WorkloadType::file)
    throw InputError(fmt::format("workload {} generates no flows", s.string("workload.type")));
  std::stable_sort(w.flows.begin(), w.flows.end(), [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; });
  return w;
}

// Multi-homed hosts: a flow leaves by the port, and arrives by the port, that a hash of its id and its two
// hosts picks (ECMP over a host's links, per flow), salted by the seed.
void place_on_ports(const Topology& t, Workload& w, std::uint64_t seed) {
  if (t.ports_of.empty()) return;
  auto pick = [&](std::uint32_t host, std::uint64_t salt) {
    const auto& ports = t.ports_of[host];
    return ports.size() == 1 ? ports[0] : ports[splitmix64(salt) % ports.size()];
  };
  for (std::size_t i = 0; i < w.flows.size(); ++i) {
    FlowSpec& f = w.flows[i];
    const std::uint64_t key = ((std::uint64_t{f.src} << 40) ^ (std::uint64_t{f.dst} << 20) ^ i) + seed_salt(seed);
    f.src = pick(f.src, key);
    f.dst = pick(f.dst, key ^ 0x5a5a5a5a5a5aULL);
  }
}

}  // namespace

Workload build_workload(const Scenario& s, const Topology& t) {
  Workload w = build_host_workload(s, t);
  place_on_ports(t, w, static_cast<std::uint64_t>(s.integer("sim.seed")));
  return w;
}

}  // namespace netasic
