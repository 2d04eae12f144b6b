// Collectives as workloads (docs/collectives.md): completion against the analytic figure on an idle
// switch, steps that wait for their data, iterations with a compute gap, and bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

struct Result {
  int status;
  std::string output;
};

Result netasic_cmd(const std::string& args) {
  FILE* pipe = popen((std::string(NETASIC_BINARY) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// N hosts on one switch, 100 Gb/s links of 1 us: every pair of ranks is two hops apart.
std::string star(int n) {
  std::string t = std::to_string(n + 1) + " 1 " + std::to_string(n) + "\n" + std::to_string(n) + "\n";
  for (int h = 0; h < n; ++h) t += std::to_string(h) + " " + std::to_string(n) + " 100Gbps 1000ns 0\n";
  return test::write_temp("star" + std::to_string(n) + ".txt", t);
}

struct Outputs {
  nlohmann::json summary;
  std::vector<std::map<std::string, std::string>> steps;  // collective_steps.csv
};

Outputs run(const std::string& name, const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-coll-" + std::to_string(getpid()) + "-" + name);
  const Result r = netasic_cmd("run " + args + " --quiet --out " + dir.string());
  EXPECT_EQ(r.status, 0) << r.output;
  Outputs out;
  out.summary = nlohmann::json::parse(slurp(dir / "summary.json"));
  std::stringstream in(slurp(dir / "collective_steps.csv"));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::stringstream h(line);
  for (std::string x; std::getline(h, x, ',');) head.push_back(x);
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::stringstream cells(line);
    std::string x;
    for (std::size_t i = 0; i < head.size() && std::getline(cells, x, ','); ++i) row[head[i]] = x;
    out.steps.push_back(row);
  }
  std::filesystem::remove_all(dir);
  return out;
}

// One step of m bytes between two hosts of the star, as docs/collectives.md writes it out: propagation over
// two links, the switch's latency, and the sender's uplink carrying the step's data packets (payload, header
// and per-packet link overhead) and the ACKs of the data it receives in the same step (one per packet).
double step_ns(double m) {
  const double mtu = 4096, header = 64, overhead = 20, ack = 64, rate_gbps = 100, prop_ns = 1000, switch_ns = 350;
  const double packets = std::ceil(m / mtu);
  const double bytes = m + packets * (header + overhead) + packets * (ack + overhead);
  return 2 * prop_ns + switch_ns + bytes * 8 / rate_gbps;
}

TEST(Collectives, RingAllReduceMatchesTheFormula) {
  const int n = 8;
  const double s = 8 << 20;
  const Outputs r = run("ring", "--set topology.type=file --set topology.file=" + star(n) +
                                " --set workload.type=collective --set workload.size_bytes=8388608");
  const auto& c = r.summary["collectives"][0];
  EXPECT_EQ(c["op"], "all_reduce");
  EXPECT_EQ(c["algorithm"], "ring");
  EXPECT_TRUE(c["complete"].get<bool>());
  // 2(N-1) steps of S/N bytes each, one after the other.
  const double formula = 2 * (n - 1) * step_ns(s / n);
  EXPECT_NEAR(c["completion_ns"].get<double>() / formula, 1.0, 0.02) << c.dump();
  // NCCL: algbw = S / t, busbw = algbw * 2(N-1)/N.
  EXPECT_NEAR(c["algbw_gbps"].get<double>(), s * 8 / c["completion_ns"].get<double>(), 1e-9);
  EXPECT_NEAR(c["busbw_gbps"].get<double>(), c["algbw_gbps"].get<double>() * 2 * (n - 1) / n, 1e-9);
  ASSERT_EQ(r.steps.size(), static_cast<std::size_t>(2 * (n - 1) * n));
}

TEST(Collectives, HalvingDoublingAllReduceMatchesTheFormula) {
  const int n = 8;
  const double s = 8 << 20;
  const Outputs r = run("hd", "--set topology.type=file --set topology.file=" + star(n) +
                              " --set workload.type=collective --set workload.size_bytes=8388608"
                              " --set workload.collective.algorithm=halving_doubling");
  const auto& c = r.summary["collectives"][0];
  // Reduce-scatter: S/2, S/4, S/8; all-gather: S/8, S/4, S/2; each step a pairwise exchange.
  double formula = 0;
  for (int k = 1; k < n; k *= 2) formula += 2 * step_ns(s / (2 * k));
  EXPECT_NEAR(c["completion_ns"].get<double>() / formula, 1.0, 0.02) << c.dump();
  ASSERT_EQ(r.steps.size(), static_cast<std::size_t>(6 * n));
}

// Tree all-reduce on 7 hosts, one chunk: two full binary trees of depth 2 (ranks 0..6 in heap order, and
// mirrored), each carrying S/2. Every stage moves two flows of S/2 over one link (two children into a parent,
// or a parent out to two children); in the first and the last stage that link also carries the ACKs of the
// S/2 its rank exchanges in the other tree. So T = 2 T2'(S/2) + 2 T2(S/2) (docs/collectives.md).
TEST(Collectives, TreeAllReduceMatchesTheFormula) {
  const int n = 7;
  const double s = 8 << 20, m = s / 2;
  const Outputs r = run("tree", "--set topology.type=file --set topology.file=" + star(n) +
                                " --set workload.type=collective --set workload.size_bytes=8388608"
                                " --set workload.collective.algorithm=tree --set workload.collective.chunk_bytes=0");
  const auto& c = r.summary["collectives"][0];
  EXPECT_EQ(c["algorithm"], "tree");
  const double packets = std::ceil(m / 4096), data = 2 * (m + packets * 84) * 8 / 100, acks = packets * 84 * 8 / 100;
  const double two_flows = 2 * 1000 + 350 + data;
  const double formula = 2 * (two_flows + acks) + 2 * two_flows;
  EXPECT_NEAR(c["completion_ns"].get<double>() / formula, 1.0, 0.02) << c.dump();
  ASSERT_EQ(r.steps.size(), static_cast<std::size_t>(2 * 2 * (n - 1)));  // per tree: 6 up, 6 down
}

// Pipelined in chunks, the tree overlaps its stages: faster than the one-chunk tree, never faster than what
// every rank must receive (2(N-1)/N S, the all-reduce bound); a rank forwards a chunk only after its children's
// copies of that chunk arrived, and the root sends it down only after it has both halves reduced.
TEST(Collectives, TreePipelinesChunksAndWaitsForThem) {
  const int n = 7;
  const double s = 8 << 20;
  const std::string base = "--set topology.type=file --set topology.file=" + star(n) +
                           " --set workload.type=collective --set workload.size_bytes=8388608"
                           " --set workload.collective.algorithm=tree";
  const double whole = run("tree1", base + " --set workload.collective.chunk_bytes=0")
                           .summary["collectives"][0]["completion_ns"].get<double>();
  const Outputs r = run("tree8", base + " --set workload.collective.chunk_bytes=524288");
  const double piped = r.summary["collectives"][0]["completion_ns"].get<double>();
  EXPECT_LT(piped, 0.7 * whole);
  EXPECT_GT(piped, 2.0 * (n - 1) / n * s * 8 / 100);
  ASSERT_EQ(r.steps.size(), static_cast<std::size_t>(2 * 8 * 2 * (n - 1)));  // 8 chunks of 512 KiB per half
  // In the first tree rank 1's children are 3 and 4 and rank 0's are 1 and 2; 3->1, 1->0, 2->0 and 0->1 occur in
  // no other role, so their k-th flows are chunk k.
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> by_pair;  // (src, dst) -> (start, finish)
  for (const auto& row : r.steps)
    by_pair[{std::stoi(row.at("src_rank")), std::stoi(row.at("dst_rank"))}].push_back(
        {std::stod(row.at("start_ns")), std::stod(row.at("finish_ns"))});
  const auto& up_1_0 = by_pair[{1, 0}];
  const auto& up_2_0 = by_pair[{2, 0}];
  const auto& up_3_1 = by_pair[{3, 1}];
  const auto& down_0_1 = by_pair[{0, 1}];
  ASSERT_EQ(up_3_1.size(), 8u);
  ASSERT_EQ(down_0_1.size(), 8u);
  for (std::size_t k = 0; k < 8; ++k) {
    EXPECT_GE(up_1_0[k].first, up_3_1[k].second) << k;
    EXPECT_GE(down_0_1[k].first, std::max(up_1_0[k].second, up_2_0[k].second)) << k;
    if (k >= 2) {
      EXPECT_GE(up_3_1[k].first, up_3_1[k - 2].second) << k;
    }
  }
}

// Hierarchical on two racks of four hosts (100 Gb/s host links, the racks' switches joined at 400 Gb/s): a
// ring in each rack, then between the racks' ranks of the same place, then in the rack again. A cross-rack
// step has three links and two switches on its path.
TEST(Collectives, HierarchicalMatchesTheFormula) {
  std::string topo = "10 2 9\n8 9\n";
  for (int h = 0; h < 8; ++h) topo += std::to_string(h) + " " + std::to_string(8 + h / 4) + " 100Gbps 1000ns 0\n";
  topo += "8 9 400Gbps 1000ns 0\n";
  const std::string file = test::write_temp("racks.txt", topo);
  const double s = 8 << 20, g = 4, racks = 2;
  auto cross = [](double m) { return step_ns(m) + 1000 + 350; };
  for (const std::string op : {"all_reduce", "reduce_scatter", "all_gather"}) {
    const Outputs r = run("hier" + op, "--set topology.type=file --set topology.file=" + file +
                                       " --set workload.type=collective --set workload.size_bytes=8388608"
                                       " --set workload.collective.algorithm=hierarchical --set workload.collective.op=" + op);
    const auto& c = r.summary["collectives"][0];
    const double phases = op == "all_reduce" ? 2 : 1;
    const double formula = phases * ((g - 1) * step_ns(s / g) + (racks - 1) * cross(s / (g * racks)));
    EXPECT_NEAR(c["completion_ns"].get<double>() / formula, 1.0, 0.02) << op << " " << c.dump();
    // Cross-rack flows connect the same place in the two racks: host h and h + 4.
    std::size_t across = 0;
    for (const auto& row : r.steps) {
      const int src = std::stoi(row.at("src_host")), dst = std::stoi(row.at("dst_host"));
      if (src / 4 == dst / 4) continue;
      EXPECT_EQ(std::abs(src - dst), 4) << op;
      ++across;
    }
    EXPECT_EQ(across, static_cast<std::size_t>(phases * 8)) << op;
  }
}

// A step starts when its data has arrived: under ring all-reduce rank r's step k starts the moment rank r-1's
// step k-1 is delivered to it; the second iteration starts gap_us after a rank's last data of the first.
TEST(Collectives, StepsWaitForTheirDataAndIterationsForTheGap) {
  const int n = 4;
  const Outputs r = run("deps", "--set topology.type=file --set topology.file=" + star(n) +
                                " --set workload.type=collective --set workload.size_bytes=65536"
                                " --set workload.collective.iterations=2 --set workload.collective.gap_us=5");
  std::map<std::array<int, 3>, std::pair<double, double>> t;  // (iteration, step, src rank) -> start, finish
  for (const auto& row : r.steps)
    t[{std::stoi(row.at("iteration")), std::stoi(row.at("step")), std::stoi(row.at("src_rank"))}] = {
        std::stod(row.at("start_ns")), std::stod(row.at("finish_ns"))};
  ASSERT_EQ(t.size(), static_cast<std::size_t>(2 * 2 * (n - 1) * n));
  const int steps = 2 * (n - 1);
  for (int it = 0; it < 2; ++it)
    for (int k = 0; k < steps; ++k)
      for (int rank = 0; rank < n; ++rank) {
        const double start = t[{it, k, rank}].first;
        const int prev = (rank + n - 1) % n;
        if (k > 0) {
          EXPECT_EQ(start, (t[{it, k - 1, prev}].second)) << it << " " << k << " " << rank;
        } else if (it > 0) {
          EXPECT_NEAR(start, (t[{it - 1, steps - 1, prev}].second + 5000), 1e-3) << it << " " << k << " " << rank;
        } else {
          EXPECT_EQ(start, 0);
        }
      }
  const auto& c = r.summary["collectives"][0];
  EXPECT_EQ(c["iteration_ns"].size(), 2u);
  EXPECT_EQ(c["iterations"], 2);
}

TEST(Collectives, EveryOperationCompletes) {
  for (const std::string op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast"}) {
    for (const std::string alg : {"ring", "halving_doubling", "tree", "hierarchical"}) {
      if (op == "all_to_all" && alg != "ring") continue;
      if (alg == "tree" && op != "all_reduce" && op != "broadcast") continue;
      if (alg == "hierarchical" && (op == "broadcast" || op == "all_to_all")) continue;
      const Outputs r = run(op + alg, "--set topology.fat_tree.k=4 --set workload.type=collective --set "
                                  "workload.size_bytes=262144 --set workload.collective.first_hosts=8 "
                                  "--set workload.collective.op=" + op + " --set workload.collective.algorithm=" + alg);
      const auto& c = r.summary["collectives"][0];
      EXPECT_TRUE(c["complete"].get<bool>()) << op << " " << alg;
      EXPECT_EQ(c["hosts"], 8);
      EXPECT_GT(c["busbw_gbps"].get<double>(), 0) << op << " " << alg;
      EXPECT_EQ(r.summary["flows"]["completed"], r.steps.size()) << op << " " << alg;
    }
  }
}

TEST(Collectives, BadInputIsExit2WithTheKey) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"--set workload.collective.algorithm=halving_doubling --set workload.collective.first_hosts=6",
       "needs a power-of-two number of hosts; 6 take part"},
      {"--set workload.collective.op=all_to_all --set workload.collective.algorithm=halving_doubling",
       "all_to_all runs with ring"},
      {"--set workload.collective.hosts=1,2,1", "host 1 is listed twice"},
      {"--set workload.collective.hosts=1,200", "workload.collective.hosts: 200 is not a host id (0..127)"},
      {"--set workload.collective.first_hosts=1", "at least 2 hosts"},
      {"--set workload.collective.first_hosts=4 --set workload.collective.hosts=0,1", "both choose the hosts"},
      {"--set workload.collective.first_hosts=4 --set workload.size_bytes=3", "at least one byte per host"},
      {"--set workload.collective.op=all_gather --set workload.collective.algorithm=tree",
       "tree runs all_reduce and broadcast; all_gather runs with ring"},
      {"--set workload.collective.op=broadcast --set workload.collective.algorithm=hierarchical",
       "hierarchical runs all_reduce, reduce_scatter and all_gather"},
      // The 128-host fat tree has 4 hosts per edge switch: hosts 0-4 are 4 in one rack and 1 in the next.
      {"--set workload.collective.first_hosts=5 --set workload.collective.algorithm=hierarchical",
       "hierarchical needs the same number of ranks in every rack; rank 0 has 4 in its rack, rank 4 has 1"},
      {"--set workload.collective.chunk_bytes=-1", "workload.collective.chunk_bytes"},
  };
  for (const Case& c : cases) {
    const Result r = netasic_cmd("run --set workload.type=collective " + c.args + " --quiet --out /tmp/netasic-coll-bad");
    EXPECT_EQ(r.status, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

// Several jobs on one fabric (docs/collectives.md, "Several jobs"): a spread job takes one host per rack
// (the 128-host fat tree's edge switches hold 4 hosts each), a listed job its hosts, a packed job the lowest
// free ones; a job starts at its start_us; each has its own entry in summary.json.
TEST(Collectives, JobsShareTheFabricOnTheirOwnHosts) {
  const std::string jobs = test::write_temp("jobs.yaml",
                                            "jobs:\n"
                                            "  - name: llm\n    op: all_reduce\n    hosts: 16\n    placement: spread\n"
                                            "    size_bytes: 1048576\n    iterations: 2\n    gap_us: 10\n"
                                            "  - name: moe\n    op: all_to_all\n    hosts: [1, 2, 3, 5]\n"
                                            "    size_bytes: 262144\n    start_us: 5\n"
                                            "  - op: all_gather\n    algorithm: halving_doubling\n    hosts: 8\n"
                                            "    size_bytes: 262144\n");
  const Outputs r = run("jobs", "--set workload.type=jobs --set workload.jobs_file=" + jobs);
  const auto& c = r.summary["collectives"];
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0]["job"], "llm");
  EXPECT_EQ(c[1]["job"], "moe");
  EXPECT_EQ(c[2]["job"], "job2");
  EXPECT_EQ(c[1]["start_ns"], 5000.0);
  std::map<int, std::set<int>> hosts;  // per job: the hosts its rank 0..N-1 flows leave from
  for (const auto& row : r.steps) {
    hosts[std::stoi(row.at("collective"))].insert(std::stoi(row.at("src_host")));
    if (row.at("collective") == "1" && row.at("step") == "0") {
      EXPECT_EQ(std::stod(row.at("start_ns")), 5000.0);
    }
  }
  std::set<int> spread;
  for (int h = 0; h < 64; h += 4) spread.insert(h);
  EXPECT_EQ(hosts[0], spread);
  EXPECT_EQ(hosts[1], (std::set<int>{1, 2, 3, 5}));
  EXPECT_EQ(hosts[2], (std::set<int>{6, 7, 9, 10, 11, 13, 14, 15}));
  for (const auto& job : c) EXPECT_TRUE(job["complete"].get<bool>()) << job.dump();
}

TEST(Collectives, BadJobsFilesAreExit2WithFileAndLine) {
  struct Case {
    std::string text, message;
  } cases[] = {
      {"jobs:\n  - op: all_reduce\n    hosts: 4\n    size_bytes: 1024\n    colour: red\n",
       "jobs.yaml:5: unknown job field 'colour'"},
      {"jobs:\n  - op: all_reduce\n    hosts: [0, 1]\n    size_bytes: 1024\n  - op: all_reduce\n    hosts: [1, 2]\n"
       "    size_bytes: 1024\n",
       "jobs.yaml:6: job 'job1': host 1 already belongs to job 'job0'"},
      {"jobs:\n  - op: all_reduce\n    hosts: 200\n    size_bytes: 1024\n", "jobs.yaml:3: hosts = '200': accepted an integer in 2 .. 128"},
      {"jobs:\n  - op: all_reduce\n    hosts: 100\n    size_bytes: 1024\n  - op: all_reduce\n    hosts: 40\n"
       "    size_bytes: 1024\n",
       "jobs.yaml:6: job 'job1' asks for 40 hosts; 28 are free"},
      {"jobs:\n  - hosts: 4\n    size_bytes: 1024\n", "jobs.yaml:2: job has no 'op'"},
      {"jobs:\n  - op: all_reduce\n    hosts: [0, 1]\n    placement: spread\n    size_bytes: 1024\n",
       "jobs.yaml:4: placement applies to a host count"},
      {"jobs:\n  - op: reduce\n    hosts: 4\n    size_bytes: 1024\n", "jobs.yaml:2: op = 'reduce'; accepted: all_gather"},
      {"jobs: 3\n", "a jobs file is a map with one key, jobs: a list of jobs"},
      {"jobs:\n  - op: all_reduce\n    algorithm: halving_doubling\n    hosts: 6\n    size_bytes: 1024\n",
       "jobs.yaml:2: job 'job0': halving_doubling needs a power-of-two number of hosts; 6 take part"},
  };
  for (const Case& c : cases) {
    const std::string file = test::write_temp("jobs.yaml", c.text);
    const Result r = netasic_cmd("run --set workload.type=jobs --set workload.jobs_file=" + file +
                                 " --quiet --out /tmp/netasic-jobs-bad");
    EXPECT_EQ(r.status, 2) << c.text << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace netasic
