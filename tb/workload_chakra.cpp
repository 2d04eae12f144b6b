#include "tb/workload_chakra.h"

#include <fmt/format.h>

#include <algorithm>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/error.h"

#ifdef NETASIC_HAVE_CHAKRA
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <array>
#include <deque>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "et_def.pb.h"
#include "tb/workload_collective.h"
#endif

namespace netasic {

nlohmann::json chakra_summary(const ChakraReplay& r, const FlowTable& flows) {
  nlohmann::json j;
  j["dir"] = r.dir;
  j["ranks"] = r.ranks;
  j["nodes"] = r.nodes;
  j["replayed"] = r.replayed;
  j["unsupported"] = r.unsupported;
  j["collectives"] = r.collectives;
  bool complete = true;
  Ps last = 0;
  nlohmann::json per_rank = nlohmann::json::array();
  for (std::size_t k = 0; k < r.rank_done.size(); ++k) {
    Ps at = r.rank_floor[k];
    for (const auto& [id, delay] : r.rank_done[k]) {
      const Flow& f = flows.flows()[id];
      if (!f.done()) complete = false;
      at = std::max(at, f.finish + delay);
    }
    per_rank.push_back(ps_to_ns(at));
    last = std::max(last, at);
  }
  j["complete"] = complete;
  j["rank_completion_ns"] = complete ? per_rank : nlohmann::json::array();
  j["completion_ns"] = complete ? ps_to_ns(last) : 0.0;
  return j;
}

#ifndef NETASIC_HAVE_CHAKRA

bool chakra_supported() { return false; }

void build_chakra(const Scenario&, const Topology&, Workload&) {
  throw InputError("workload.type = chakra: this netasic was built without protobuf (install protobuf-compiler and "
                   "libprotobuf-dev, then configure again with -DNETASIC_CHAKRA=ON)");
}

#else

bool chakra_supported() { return true; }

namespace {

namespace pb = ChakraProtoMsg;
namespace fs = std::filesystem;

// When a node is done: every listed flow delivered plus its delay, and not before `floor`.
struct Ready {
  std::map<std::uint32_t, Ps> after;
  Ps floor = 0;
  void merge(const Ready& o) {
    floor = std::max(floor, o.floor);
    for (const auto& [id, d] : o.after) after[id] = std::max(after[id], d);
  }
  void delay(Ps d) {
    floor += d;
    for (auto& [id, x] : after) x += d;
  }
};

struct RankTrace {
  std::string path;
  std::vector<pb::Node> nodes;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the Chakra trace file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

RankTrace parse_trace(const std::string& path) {
  const std::string bytes = read_file(path);
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  RankTrace t{path, {}};
  bool metadata = false;
  std::set<std::uint64_t> ids;
  while (in.CurrentPosition() < static_cast<int>(bytes.size())) {
    const int at = in.CurrentPosition();
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length) || length > bytes.size() - static_cast<std::size_t>(in.CurrentPosition()))
      throw InputError(fmt::format("{}: byte {}: a message length that runs past the end of the file (a truncated or "
                                   "not a Chakra trace file)",
                                   path, at));
    const auto limit = in.PushLimit(static_cast<int>(length));
    bool ok;
    if (!metadata) {
      pb::GlobalMetadata m;
      ok = m.ParseFromCodedStream(&in);
      metadata = true;
    } else {
      pb::Node n;
      ok = n.ParseFromCodedStream(&in);
      if (ok && !ids.insert(n.id()).second)
        throw InputError(fmt::format("{}: byte {}: node id {} appears twice", path, at, n.id()));
      if (ok) t.nodes.push_back(std::move(n));
    }
    if (!ok || in.BytesUntilLimit() != 0)
      throw InputError(fmt::format("{}: byte {}: the {} does not parse (not a Chakra execution trace?)", path, at,
                                   t.nodes.empty() && !ok ? "global metadata or first node" : "node"));
    in.PopLimit(limit);
  }
  if (!metadata) throw InputError(fmt::format("{}: empty; a Chakra trace starts with its global metadata", path));
  return t;
}

// The directory's <name>.<rank>.et files, ranks 0..R-1 without gaps.
std::vector<RankTrace> read_traces(const std::string& dir, std::uint32_t hosts) {
  std::error_code ec;
  if (dir.empty()) throw InputError("workload.type is chakra but workload.chakra_dir is not set");
  if (!fs::is_directory(dir, ec))
    throw InputError(fmt::format("workload.chakra_dir = {}: not a directory of Chakra trace files", dir));
  static const std::regex name(R"((.+)\.([0-9]{1,9})\.et)");
  std::map<std::uint32_t, std::string> by_rank;
  std::string prefix;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    const std::string file = e.path().filename().string();
    if (!std::regex_match(file, m, name)) continue;
    if (!prefix.empty() && m[1] != prefix)
      throw InputError(fmt::format("{}: traces of two runs ({}.*.et and {}.*.et); keep one per directory", dir, prefix,
                                   m[1].str()));
    prefix = m[1];
    by_rank[static_cast<std::uint32_t>(std::stoul(m[2]))] = e.path().string();
  }
  if (by_rank.empty()) throw InputError(fmt::format("{}: no Chakra trace files (<name>.<rank>.et)", dir));
  if (by_rank.rbegin()->first + 1 != by_rank.size())
    for (std::uint32_t r = 0;; ++r)
      if (!by_rank.count(r)) throw InputError(fmt::format("{}: no trace for rank {} ({}.{}.et)", dir, r, prefix, r));
  if (by_rank.size() > hosts)
    throw InputError(fmt::format("{}: {} ranks; the topology has {} hosts (rank r runs on host r)", dir, by_rank.size(),
                                 hosts));
  std::vector<RankTrace> traces;
  for (const auto& [rank, path] : by_rank) traces.push_back(parse_trace(path));
  return traces;
}

const pb::AttributeProto* attr(const pb::Node& n, const char* name) {
  for (const auto& a : n.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t integer_attr(const RankTrace& t, const pb::Node& n, const char* name) {
  const pb::AttributeProto* a = attr(n, name);
  if (a) switch (a->value_case()) {
      case pb::AttributeProto::kInt32Val: return a->int32_val();
      case pb::AttributeProto::kInt64Val: return a->int64_val();
      case pb::AttributeProto::kUint32Val: return a->uint32_val();
      case pb::AttributeProto::kUint64Val: return static_cast<std::int64_t>(a->uint64_val());
      case pb::AttributeProto::kSint32Val: return a->sint32_val();
      case pb::AttributeProto::kSint64Val: return a->sint64_val();
      default: break;
    }
  throw InputError(fmt::format("{}: node {} ({}): {} without an integer attribute {}", t.path, n.id(), n.name(),
                               pb::NodeType_Name(n.type()), name));
}

std::int64_t optional_attr(const RankTrace& t, const pb::Node& n, const char* name) {
  return attr(n, name) ? integer_attr(t, n, name) : 0;
}

// The replay: every rank's nodes in dependency order; a receive waits for its matching send, a collective
// for every rank to reach it.
class Replay {
 public:
  Replay(std::vector<RankTrace> traces, const Scenario& s, const Topology& t, Workload& w)
      : traces_(std::move(traces)), w_(w), ranks_(static_cast<std::uint32_t>(traces_.size())) {
    algorithm_ = s.choice<CollectiveAlgorithm>("workload.collective.algorithm");
    chunk_bytes_ = static_cast<std::uint64_t>(s.integer("workload.collective.chunk_bytes"));
    tclass_ = static_cast<std::uint8_t>(s.integer("workload.traffic_class"));
    const std::vector<std::uint32_t> rack = rack_of(t);
    for (std::uint32_t r = 0; r < ranks_; ++r) racks_.push_back(rack[r]);
    state_.resize(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) index(r);
  }

  ChakraReplay run(const std::string& dir);

 private:
  struct RankState {
    std::map<std::uint64_t, std::uint32_t> by_id;
    std::vector<std::vector<std::uint32_t>> children;
    std::vector<std::uint32_t> waiting;  // per node: parents not done
    std::vector<Ready> ready, done;
    std::vector<char> finished;
    std::deque<std::uint32_t> queue;
    std::uint32_t collectives = 0;  // collective nodes reached so far
  };
  using Key = std::array<std::int64_t, 3>;  // src, dst, tag

  void index(std::uint32_t r);
  void process(std::uint32_t r, std::uint32_t n);
  void finish(std::uint32_t r, std::uint32_t n, Ready done);
  std::uint32_t add_flow(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, const Ready& after);
  void collective(std::uint32_t k);
  void stuck() const;

  std::vector<RankTrace> traces_;
  Workload& w_;
  std::uint32_t ranks_;
  CollectiveAlgorithm algorithm_;
  std::uint64_t chunk_bytes_;
  std::uint8_t tclass_;
  std::vector<std::uint32_t> racks_;
  std::vector<RankState> state_;
  std::map<Key, std::deque<std::uint32_t>> sends_;                          // unmatched send flows
  std::map<Key, std::deque<std::pair<std::uint32_t, std::uint32_t>>> recvs_;  // waiting (rank, node)
  std::map<std::uint32_t, std::vector<std::uint32_t>> at_collective_;       // k -> node of each rank
  ChakraReplay out_;
};

void Replay::index(std::uint32_t r) {
  RankState& st = state_[r];
  const auto& nodes = traces_[r].nodes;
  const auto n = nodes.size();
  for (std::uint32_t i = 0; i < n; ++i) st.by_id[nodes[i].id()] = i;
  st.children.resize(n);
  st.waiting.assign(n, 0);
  st.ready.resize(n);
  st.done.resize(n);
  st.finished.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::set<std::uint64_t> parents(nodes[i].data_deps().begin(), nodes[i].data_deps().end());
    parents.insert(nodes[i].ctrl_deps().begin(), nodes[i].ctrl_deps().end());
    for (std::uint64_t p : parents) {
      const auto it = st.by_id.find(p);
      if (it == st.by_id.end())
        throw InputError(fmt::format("{}: node {} ({}) depends on node {}, which the trace does not have",
                                     traces_[r].path, nodes[i].id(), nodes[i].name(), p));
      st.children[it->second].push_back(i);
      ++st.waiting[i];
    }
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (st.waiting[i] == 0) st.queue.push_back(i);
}

std::uint32_t Replay::add_flow(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, const Ready& after) {
  const auto id = static_cast<std::uint32_t>(w_.flows.size());
  w_.flows.push_back(FlowSpec{src, dst, std::max<std::uint64_t>(1, bytes), after.floor, tclass_, 4791});
  w_.gap.push_back(0);
  for (const auto& [before, delay] : after.after) {
    w_.deps.emplace_back(before, id);
    w_.dep_delay.push_back(delay);
  }
  return id;
}

void Replay::finish(std::uint32_t r, std::uint32_t n, Ready done) {
  RankState& st = state_[r];
  st.finished[n] = 1;
  for (std::uint32_t c : st.children[n]) {
    st.ready[c].merge(done);
    if (--st.waiting[c] == 0) st.queue.push_back(c);
  }
  if (st.children[n].empty()) {  // a last node: the rank is done when it is
    for (const auto& [id, d] : done.after) out_.rank_done[r].emplace_back(id, d);
    out_.rank_floor[r] = std::max(out_.rank_floor[r], done.floor);
  }
  st.done[n] = std::move(done);
}

void Replay::process(std::uint32_t r, std::uint32_t n) {
  const RankTrace& t = traces_[r];
  const pb::Node& node = t.nodes[n];
  RankState& st = state_[r];
  const std::string kind = pb::NodeType_Name(node.type());
  switch (node.type()) {
    case pb::COMP_NODE: {
      ++out_.replayed[kind];
      Ready done = st.ready[n];
      done.delay(static_cast<Ps>(node.duration_micros()) * kPsPerUs);
      return finish(r, n, std::move(done));
    }
    case pb::COMM_SEND_NODE: {
      ++out_.replayed[kind];
      const std::int64_t dst = integer_attr(t, node, "comm_dst"), size = integer_attr(t, node, "comm_size");
      if (dst < 0 || dst >= ranks_ || dst == r || size < 0)
        throw InputError(fmt::format("{}: node {} ({}): comm_dst {} or comm_size {} out of range (ranks 0..{}, not "
                                     "itself)",
                                     t.path, node.id(), node.name(), dst, size, ranks_ - 1));
      const Key key{r, dst, optional_attr(t, node, "comm_tag")};
      const std::uint32_t flow = add_flow(r, static_cast<std::uint32_t>(dst), static_cast<std::uint64_t>(size), st.ready[n]);
      auto& waiting = recvs_[key];
      if (!waiting.empty()) {  // a receive was waiting for it
        const auto [rr, rn] = waiting.front();
        waiting.pop_front();
        Ready got = state_[rr].ready[rn];
        got.after[flow] = 0;
        finish(rr, rn, std::move(got));
      } else {
        sends_[key].push_back(flow);
      }
      return finish(r, n, Ready{{{flow, 0}}, st.ready[n].floor});
    }
    case pb::COMM_RECV_NODE: {
      ++out_.replayed[kind];
      const Key key{integer_attr(t, node, "comm_src"), r, optional_attr(t, node, "comm_tag")};
      auto& sent = sends_[key];
      if (sent.empty()) return recvs_[key].push_back({r, n});
      Ready got = st.ready[n];
      got.after[sent.front()] = 0;
      sent.pop_front();
      return finish(r, n, std::move(got));
    }
    case pb::COMM_COLL_NODE: {
      const std::uint32_t k = st.collectives++;
      auto& at = at_collective_[k];
      at.resize(ranks_, ~0u);
      at[r] = n;
      if (std::count(at.begin(), at.end(), ~0u) == 0) collective(k);
      return;
    }
    default:
      ++out_.unsupported[kind];
      return finish(r, n, st.ready[n]);
  }
}

// Collective k, now that every rank has reached it: the algorithm's flows, each rank's sends also waiting
// for that rank's own dependencies; a rank is done with it when every flow to or from it is delivered.
void Replay::collective(std::uint32_t k) {
  const std::vector<std::uint32_t>& at = at_collective_[k];
  const pb::Node& first = traces_[0].nodes[at[0]];
  const std::int64_t type = integer_attr(traces_[0], first, "comm_type");
  const std::int64_t size = integer_attr(traces_[0], first, "comm_size");
  for (std::uint32_t r = 1; r < ranks_; ++r) {
    const pb::Node& n = traces_[r].nodes[at[r]];
    if (integer_attr(traces_[r], n, "comm_type") != type || integer_attr(traces_[r], n, "comm_size") != size)
      throw InputError(fmt::format("{}: node {} ({}): collective {} of rank {} is not the one rank 0 calls there ({}: "
                                   "node {}, comm_type {}, comm_size {})",
                                   traces_[r].path, n.id(), n.name(), k, r, traces_[0].path, first.id(), type, size));
  }
  static const std::map<std::int64_t, CollectiveOp> ops = {
      {pb::ALL_REDUCE, CollectiveOp::all_reduce}, {pb::ALL_GATHER, CollectiveOp::all_gather},
      {pb::REDUCE_SCATTER, CollectiveOp::reduce_scatter}, {pb::ALL_TO_ALL, CollectiveOp::all_to_all},
      {pb::BROADCAST, CollectiveOp::broadcast}};
  const auto op = ops.find(type);
  const std::string type_name = pb::CollectiveCommType_IsValid(static_cast<int>(type))
                                    ? pb::CollectiveCommType_Name(static_cast<pb::CollectiveCommType>(type))
                                    : fmt::format("comm_type {}", type);
  if (op == ops.end() || ranks_ < 2) {  // no flows: every rank passes through it
    out_.unsupported[fmt::format("COMM_COLL_NODE {}", type_name)] += ranks_;
    for (std::uint32_t r = 0; r < ranks_; ++r) finish(r, at[r], state_[r].ready[at[r]]);
    return;
  }
  out_.replayed["COMM_COLL_NODE"] += ranks_;
  ++out_.collectives;
  const std::vector<CollectiveSend> plan = collective_plan(
      op->second, algorithm_, std::max<std::int64_t>(1, size), racks_, chunk_bytes_,
      fmt::format("{}: node {} ({})", traces_[0].path, first.id(), first.name()));
  Collective c;
  c.name = fmt::format("chakra {} {}", k, first.name());
  c.op = op->second;
  c.algorithm = algorithm_;
  for (std::uint32_t r = 0; r < ranks_; ++r) c.hosts.push_back(r);
  c.racks = racks_;
  c.bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(1, size));
  c.first_flow = static_cast<std::uint32_t>(w_.flows.size());
  c.start = state_[0].ready[at[0]].floor;  // when the first rank could enter it, as far as compute alone says
  for (std::uint32_t r = 1; r < ranks_; ++r) c.start = std::min(c.start, state_[r].ready[at[r]].floor);
  std::vector<Ready> done(ranks_);
  std::vector<std::vector<std::uint32_t>> last_recv(ranks_), recv(ranks_);
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const CollectiveSend& x = plan[i];
    if (i > 0 && plan[i - 1].step != x.step)
      for (std::uint32_t r = 0; r < ranks_; ++r)
        if (!recv[r].empty()) last_recv[r] = std::exchange(recv[r], {});
    Ready after = state_[x.src].ready[at[x.src]];
    if (x.explicit_needs)
      for (std::uint32_t need : x.needs) after.after[c.first_flow + need] = 0;
    else
      for (std::uint32_t b : last_recv[x.src]) after.after[b] = 0;
    const std::uint32_t id = add_flow(x.src, x.dst, x.bytes, after);
    c.steps.push_back({0, x.step, x.src, x.dst});
    recv[x.dst].push_back(id);
    done[x.src].after[id] = 0;
    done[x.dst].after[id] = 0;
  }
  w_.collectives.push_back(std::move(c));
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    done[r].merge(state_[r].ready[at[r]]);
    finish(r, at[r], std::move(done[r]));
  }
}

// Nodes left when nothing can move: name the first of each rank that waits, and for what.
void Replay::stuck() const {
  for (std::uint32_t r = 0; r < ranks_; ++r) {
    const RankState& st = state_[r];
    for (std::uint32_t n = 0; n < st.finished.size(); ++n) {
      if (st.finished[n]) continue;
      const pb::Node& node = traces_[r].nodes[n];
      const char* why = st.waiting[n] > 0 ? "its dependencies form a cycle or wait on a node that cannot finish"
                        : node.type() == pb::COMM_RECV_NODE ? "no rank sends it the matching message (comm_src, comm_tag)"
                                                            : "not every rank reaches this collective";
      throw InputError(fmt::format("{}: node {} ({}, {}) can never run: {}", traces_[r].path, node.id(), node.name(),
                                   pb::NodeType_Name(node.type()), why));
    }
  }
}

ChakraReplay Replay::run(const std::string& dir) {
  out_.dir = dir;
  out_.ranks = ranks_;
  out_.rank_done.resize(ranks_);
  out_.rank_floor.assign(ranks_, 0);
  for (const RankTrace& t : traces_) out_.nodes += t.nodes.size();
  w_.gap.resize(w_.flows.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t r = 0; r < ranks_; ++r)
      while (!state_[r].queue.empty()) {
        const std::uint32_t n = state_[r].queue.front();
        state_[r].queue.pop_front();
        process(r, n);
        progress = true;
      }
  }
  stuck();
  return std::move(out_);
}

}  // namespace

void build_chakra(const Scenario& s, const Topology& t, Workload& w) {
  const std::string& dir = s.string("workload.chakra_dir");
  Replay replay(read_traces(dir, t.user_hosts()), s, t, w);
  w.chakra.push_back(replay.run(dir));
  const ChakraReplay& r = w.chakra.back();
  std::string unsupported;
  for (const auto& [kind, count] : r.unsupported) unsupported += fmt::format("{}{} {}", unsupported.empty() ? "" : ", ", kind, count);
  if (!unsupported.empty())
    fmt::print(stderr, "netasic: warning: {}: nodes replayed as no-ops (not modelled): {}\n", dir, unsupported);
  w.description = fmt::format("Chakra trace {}: {} ranks, {} nodes, {} collectives, {} flows{}", dir, r.ranks, r.nodes,
                              r.collectives, w.flows.size(), unsupported.empty() ? "" : "; no-ops: " + unsupported);
}

#endif

}  // namespace netasic
