#include "tb/workload_jobs.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "tb/inputs/parse_util.h"
#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tb/workload_collective.h"
#include "tb/yaml_text.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {

namespace {

using input_detail::read_text_file;
using Placement = JobPlacement;

struct Field {
  std::string where;  // "jobs.yaml:7"
  std::string text;
};

Placement placement_of(const std::string& name, const std::string& where) {
  if (name == "packed") return Placement::packed;
  if (name == "spread") return Placement::spread;
  if (name == "random") return Placement::random;
  throw InputError(fmt::format("{}: placement '{}'; accepted: packed, spread, random", where, name));
}

double number(const Field& f, const char* key, double lo, double hi) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(f.text.c_str(), &end);
  if (f.text.empty() || *end || errno || !std::isfinite(v) || v < lo || v > hi)
    throw InputError(fmt::format("{}: {} = {}: accepted a number in {} .. {}", f.where, key, input_detail::quoted(f.text), lo, hi));
  return v;
}

std::uint64_t integer(const Field& f, const char* key, std::uint64_t lo, std::uint64_t hi) {
  if (!is_plain_decimal(f.text, false) || f.text[0] == '-' || f.text[0] == '+' || f.text.size() > 19 ||
      std::stoull(f.text) < lo || std::stoull(f.text) > hi)
    throw InputError(fmt::format("{}: {} = {}: accepted an integer in {} .. {}", f.where, key, input_detail::quoted(f.text), lo, hi));
  return std::stoull(f.text);
}

template <class E>
E choice(const Field& f, const char* key, const std::map<std::string, E>& names) {
  if (const auto it = names.find(f.text); it != names.end()) return it->second;
  std::string accepted;
  for (const auto& [n, e] : names) accepted += (accepted.empty() ? "" : ", ") + n;
  throw InputError(fmt::format("{}: {} = {}; accepted: {}", f.where, key, input_detail::quoted(f.text), accepted));
}

std::vector<std::uint32_t> place(Placement p, std::uint32_t count, const std::vector<char>& used,
                                 const std::vector<std::uint32_t>& rack, Rng& rng) {
  std::vector<std::uint32_t> free;
  for (std::uint32_t h = 0; h < used.size(); ++h)
    if (!used[h]) free.push_back(h);
  if (p == Placement::random) {
    for (std::size_t i = free.size(); i > 1; --i) std::swap(free[i - 1], free[rng.below(i)]);
  } else if (p == Placement::spread) {
    // Round robin over racks: the first free host of each rack in turn, racks in switch order.
    std::map<std::uint32_t, std::vector<std::uint32_t>> by_rack;
    for (std::uint32_t h : free) by_rack[rack[h]].push_back(h);
    std::vector<std::uint32_t> order;
    for (std::size_t k = 0; order.size() < free.size(); ++k)
      for (const auto& [r, hosts] : by_rack)
        if (k < hosts.size()) order.push_back(hosts[k]);
    free = order;
  }
  free.resize(std::min<std::size_t>(free.size(), count));
  return free;
}

// A job's fields by name, each with its file and line; a list of hosts is returned as the node.
std::map<std::string, Field> job_fields(const YAML::Node& job, const std::string& path, YAML::Node& hosts_node,
                                        bool& host_list) {
  static const std::set<std::string> known = {"name", "op", "algorithm", "hosts", "placement", "size_bytes",
                                              "iterations", "gap_us", "start_us", "chunk_bytes"};
  std::map<std::string, Field> f;
  for (const auto& kv : job) {
    const std::string key = kv.first.IsScalar() ? kv.first.as<std::string>() : "?";
    const std::string where = fmt::format("{}:{}", path, kv.first.Mark().line + 1);
    if (!known.count(key))
      throw InputError(fmt::format("{}: unknown job field {}; accepted: algorithm, chunk_bytes, gap_us, hosts, "
                                   "iterations, name, op, placement, size_bytes, start_us",
                                   where, input_detail::quoted(key)));
    if (f.count(key)) throw InputError(fmt::format("{}: job field '{}' appears twice", where, key));
    if (key == "hosts" && kv.second.IsSequence()) {
      hosts_node = kv.second;
      host_list = true;
    } else if (!kv.second.IsScalar()) {
      throw InputError(fmt::format("{}: {} takes a single value", where, key));
    }
    f[key] = Field{where, kv.second.IsScalar() ? kv.second.as<std::string>() : ""};
  }
  return f;
}

// One line for all jobs (each job's own line is in summary.json collectives).
std::string describe_jobs(const Workload& w, const std::string& path) {
  std::map<std::string, std::uint32_t> kinds;
  for (const Collective& c : w.collectives)
    ++kinds[fmt::format("{} ({}) on {} hosts", to_string(c.op), to_string(c.algorithm), c.hosts.size())];
  std::string what;
  for (const auto& [kind, count] : kinds) what += fmt::format("{}{} x {}", what.empty() ? "" : ", ", count, kind);
  const std::size_t n = w.collectives.size();
  return fmt::format("{} job{} from {}: {}; {} flows", n, n == 1 ? "" : "s", path, what, w.flows.size());
}

}  // namespace

void build_jobs(const Scenario& s, const Topology& t, Workload& w) {
  const std::string& path = s.string("workload.jobs_file");
  if (path.empty()) throw InputError("workload.type is jobs but workload.jobs_file is not set");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory, not a jobs file", path));
  const YAML::Node root = load_one_yaml_document(read_text_file(path, "jobs file"), path, "a jobs file holds one map");
  if (!root.IsMap() || !root["jobs"] || !root["jobs"].IsSequence() || root["jobs"].size() == 0 || root.size() != 1)
    throw InputError(fmt::format("{}: a jobs file is a map with one key, jobs: a list of jobs (docs/collectives.md)",
                                 path));
  const Placement default_placement = s.choice<JobPlacement>("workload.placement");
  const auto tclass = static_cast<std::uint8_t>(s.integer("workload.traffic_class"));
  const std::vector<std::uint32_t> rack = rack_of(t);
  std::vector<char> used(t.user_hosts(), 0);
  std::vector<std::string> used_by(t.user_hosts());
  std::set<std::string> names;
  Rng rng(static_cast<std::uint64_t>(s.integer("sim.seed")), 0x4A4F4253);
  std::uint32_t index = 0;
  for (const YAML::Node& job : root["jobs"]) {
    const std::string at = fmt::format("{}:{}", path, job.Mark().line + 1);
    if (!job.IsMap()) throw InputError(fmt::format("{}: a job is a map of fields (name, op, hosts, size_bytes, ...)", at));
    YAML::Node hosts_node;
    bool host_list = false;
    std::map<std::string, Field> f = job_fields(job, path, hosts_node, host_list);
    for (const char* required : {"op", "hosts", "size_bytes"})
      if (!f.count(required)) throw InputError(fmt::format("{}: job has no '{}'", at, required));
    Collective c;
    c.name = f.count("name") ? f["name"].text : fmt::format("job{}", index);
    if (!names.insert(c.name).second) throw InputError(fmt::format("{}: job name '{}' is used twice", at, c.name));
    c.op = choice<CollectiveOp>(f["op"], "op",
                                {{"all_reduce", CollectiveOp::all_reduce}, {"all_gather", CollectiveOp::all_gather},
                                 {"reduce_scatter", CollectiveOp::reduce_scatter},
                                 {"all_to_all", CollectiveOp::all_to_all}, {"broadcast", CollectiveOp::broadcast}});
    if (f.count("algorithm"))
      c.algorithm = choice<CollectiveAlgorithm>(f["algorithm"], "algorithm",
                                                {{"ring", CollectiveAlgorithm::ring},
                                                 {"halving_doubling", CollectiveAlgorithm::halving_doubling},
                                                 {"tree", CollectiveAlgorithm::tree},
                                                 {"hierarchical", CollectiveAlgorithm::hierarchical}});
    c.bytes = integer(f["size_bytes"], "size_bytes", 1, 1000000000000ULL);
    c.chunk_bytes = f.count("chunk_bytes") ? integer(f["chunk_bytes"], "chunk_bytes", 0, 1000000000000ULL)
                                           : static_cast<std::uint64_t>(s.integer("workload.collective.chunk_bytes"));
    if (f.count("iterations")) c.iterations = static_cast<std::uint32_t>(integer(f["iterations"], "iterations", 1, 1000000));
    if (f.count("gap_us")) c.gap = static_cast<Ps>(number(f["gap_us"], "gap_us", 0, 1e9) * kPsPerUs + 0.5);
    if (f.count("start_us")) c.start = static_cast<Ps>(number(f["start_us"], "start_us", 0, 1e9) * kPsPerUs + 0.5);
    if (host_list) {
      if (f.count("placement"))
        throw InputError(fmt::format("{}: placement applies to a host count, not to a list of hosts", f["placement"].where));
      for (const auto& item : hosts_node) {
        const std::string where = fmt::format("{}:{}", path, item.Mark().line + 1);
        const auto h = static_cast<std::uint32_t>(
            integer(Field{where, item.IsScalar() ? item.as<std::string>() : "?"}, "hosts", 0, t.user_hosts() - 1));
        if (used[h])
          throw InputError(fmt::format("{}: job '{}': host {} already belongs to job '{}' (jobs do not share hosts)",
                                       where, c.name, h, used_by[h]));
        c.hosts.push_back(h);
        used[h] = 1;
        used_by[h] = c.name;
      }
    } else {
      const auto count = static_cast<std::uint32_t>(integer(f["hosts"], "hosts", 2, t.user_hosts()));
      const Placement p = f.count("placement") ? placement_of(f["placement"].text, f["placement"].where) : default_placement;
      c.hosts = place(p, count, used, rack, rng);
      if (c.hosts.size() < count)
        throw InputError(fmt::format("{}: job '{}' asks for {} hosts; {} are free (jobs do not share hosts)",
                                     f["hosts"].where, c.name, count, c.hosts.size()));
      for (std::uint32_t h : c.hosts) {
        used[h] = 1;
        used_by[h] = c.name;
      }
    }
    for (std::uint32_t h : c.hosts) c.racks.push_back(rack[h]);
    add_collective(std::move(c), fmt::format("{}: job '{}'", at, f.count("name") ? f["name"].text : fmt::format("job{}", index)),
                   tclass, w);
    ++index;
  }
  w.description = describe_jobs(w, path);
}

}  // namespace netasic
