// Hop-by-hop flow control at the egress queues (switch.flow_control): FlowSail, BFC-style, PFC and ideal
// per-flow control in running networks.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tlm/common/error.h"
#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using test::write_temp;

// FlowSail's three-flow microbenchmark (Li et al., ToN 2024, Fig. 9/10): hosts S1, S2, S3 (60, 20 and
// 20 Gb/s links) behind switch SW1, one 100 Gb/s link to SW2, receivers R1 (40 Gb/s: port P2, the
// bottleneck) and R2. f1 = S1 -> R1 and f2 = S2 -> R1 share P2, where f1 exceeds its fair share and f2
// does not; f3 = S3 -> R2 shares only SW1's port toward SW2 (P1) with f1. 1000-byte packets, as the paper.
// (configs/flowsail/three-flows.yaml is the same scenario for users.)
Scenario three_flow_scenario(const std::string& mode, int queues, const std::vector<std::string>& extra = {}) {
  const std::string topo = write_temp("three-flows-topo.txt",
                                     "7 2 6\n5 6\n"
                                     "0 5 60Gbps 1us 0\n1 5 20Gbps 1us 0\n2 5 20Gbps 1us 0\n"
                                     "5 6 100Gbps 1us 0\n6 3 40Gbps 1us 0\n6 4 100Gbps 1us 0\n");
  const std::string flows = write_temp("three-flows.txt",
                                       "3\n0 3 0 100 4194304 0\n1 3 0 100 4194304 0\n2 4 0 100 4194304 0\n");
  Scenario s;
  const std::vector<std::string> keys = {"topology.type=file", "topology.file=" + topo, "workload.type=file",
                                         "workload.file=" + flows, "switch.flow_control=" + mode,
                                         "switch.fc.queues=" + std::to_string(queues), "nic.mtu_bytes=1000",
                                         "nic.header_bytes=48"};
  for (const std::string& k : keys) s.set_assignment(k);
  for (const std::string& k : extra) s.set_assignment(k);
  return s;
}

// The same three flows in a process of their own (a test's second run): summary.json.
nlohmann::json three_flows_process(const std::string& name, const std::string& mode, int queues,
                                   const std::vector<std::string>& extra = {}) {
  return test::run_process(name, test::write_scenario(name + ".yaml", three_flow_scenario(mode, queues, extra)));
}

// Runs them in this process; returns each flow's average throughput in Gb/s (size over completion time).
std::vector<double> three_flows(const std::string& mode, int queues, nlohmann::json* summary = nullptr) {
  auto sim = test::run(three_flow_scenario(mode, queues));
  std::vector<double> gbps;
  for (const Flow& f : sim->flows().flows()) {
    EXPECT_TRUE(f.done()) << "flow " << f.id << " did not complete";
    gbps.push_back(f.done() ? static_cast<double>(f.size_bytes) * 8000.0 / static_cast<double>(f.finish - f.start) : 0);
  }
  const auto j = sim->summary();
  EXPECT_EQ(j["packets"]["out_of_order"].get<std::uint64_t>(), 0u);
  if (summary) *summary = j;
  return gbps;
}

// A 20 Gb/s host link carries 1000 payload bytes in 1068 wire bytes: 18.7 Gb/s of payload at most.
constexpr double kUnharmed = 17.5;  // within 6.5% of that
constexpr double kHarmed = 16.5;  // more than 11% below it

TEST(FlowSail, ThreeFlowsPausesOnlyTheCongestingFlow) {
  nlohmann::json j;
  const auto r = three_flows("flowsail", 8, &j);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_GE(r[1], kUnharmed) << "f2 shares the congested port without exceeding its share";
  EXPECT_GE(r[2], kUnharmed) << "f3 only shares an upstream queue with f1";
  EXPECT_LT(r[0], 40.0 - r[1] + 1.0) << "f1 gets at most what P2 leaves";
  EXPECT_GT(j["flow_control"]["pause_frames"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["flow_control"]["isolations"].get<std::uint64_t>(), 0u) << "f1 moved to rsvQ at SW1";
}

TEST(FlowSail, ThreeFlowsIsolationProtectsTheUpstreamQueueWithOneNormalQueue) {
  // Two queues: one normal queue and rsvQ. f1 and f3 share SW1's normal queue; once SW2 pauses f1, SW1
  // moves it to rsvQ and f3 keeps its rate.
  nlohmann::json j;
  const auto r = three_flows("flowsail", 2, &j);
  EXPECT_GE(r[2], kUnharmed);
  EXPECT_GT(j["flow_control"]["order_mark_pairs"].get<std::uint64_t>(), 0u)
      << "f1 had packets in the shared queue when it was isolated: Order Marks keep it in order";
}

TEST(FlowSail, MarksAreCountedByTheRuleThatMadeThem) {
  // Algorithm 1: with 8 queues f1 is alone in its queue, where S_fair is the whole queue, so only Qh marks
  // it; with 2 queues f1 and f2 share one, and the fair-share rule marks too.
  nlohmann::json j2;
  three_flows("flowsail", 2, &j2);
  const nlohmann::json j8 = three_flows_process("eight-queues", "flowsail", 8);
  for (const nlohmann::json* j : std::vector<const nlohmann::json*>{&j8, &j2}) {
    const nlohmann::json& fc = (*j)["flow_control"];
    EXPECT_EQ(fc["marked_over_q_high"].get<std::uint64_t>() + fc["marked_over_fair_share"].get<std::uint64_t>(),
              fc["marked_packets"].get<std::uint64_t>());
  }
  EXPECT_EQ(j8["flow_control"]["marked_over_fair_share"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j2["flow_control"]["marked_over_fair_share"].get<std::uint64_t>(), 0u);
}

TEST(FlowSail, CftReleaseHysteresisKeepsFlowsIsolated) {
  // f1 sends without a break: with the paper's 2 hop-RTT hysteresis it is isolated once and stays in the
  // CFT; released as soon as it is resumed and empty, it is isolated again at every PAUSE.
  nlohmann::json held;
  three_flows("flowsail", 2, &held);
  const nlohmann::json released = three_flows_process("release-at-once", "flowsail", 2, {"switch.fc.cft_release_hrtt=0"});
  EXPECT_LE(held["flow_control"]["isolations"].get<std::uint64_t>(), 3u);
  EXPECT_GT(released["flow_control"]["isolations"].get<std::uint64_t>(),
            4 * held["flow_control"]["isolations"].get<std::uint64_t>());
}

TEST(FlowSail, ThreeFlowsBfcWithFewQueuesSlowsInnocentFlows) {
  // BFC-style with two queues: f3 ends up sharing f1's upstream queue, which BFC stops as a whole.
  const auto r = three_flows("bfc", 2);
  EXPECT_LT(r[2], kHarmed);
}

TEST(FlowSail, ThreeFlowsPfcSlowsInnocentFlows) {
  const auto r = three_flows("pfc", 8);
  EXPECT_LT(r[1], kHarmed);
  EXPECT_LT(r[2], kHarmed);
}

TEST(FlowSail, ThreeFlowsIdealPerFlowControl) {
  const auto r = three_flows("ideal", 8);
  EXPECT_GE(r[1], kUnharmed);
  EXPECT_GE(r[2], kUnharmed);
}

// The paper's bound (Li et al., Fig. 11 and 17): ideal per-flow flow control, a queue per flow, does at
// least as well as FlowSail with 8 queues, on the short flows' tail and on the large flows. Fig. 11's
// set-up, configs/flowsail/webserver-incast.yaml (web-server sizes at load 0.6 with 100-to-1 incast, k=8,
// 100 Gb/s, 1000-byte packets, 12 MiB per switch, seed 1). The large flows are the 1-10 MB bucket:
// background flows only, as the incast bursts' flows are 50-200 KB.
Scenario webserver_incast(const std::string& mode) {
  Scenario s;
  s.load_yaml_file(std::string(NETASIC_SOURCE_DIR) + "/configs/flowsail/webserver-incast.yaml");
  s.set_assignment("switch.flow_control=" + mode);
  return s;
}

// The bucket of summary.json's flows.by_size named `bucket`.
const nlohmann::json& size_bucket(const nlohmann::json& summary, const std::string& bucket) {
  for (const auto& b : summary["flows"]["by_size"])
    if (b["bucket"] == bucket) return b;
  throw std::runtime_error("no flows.by_size bucket " + bucket);
}

TEST(FlowSail, IdealPerFlowControlIsTheBound) {
  const auto flowsail = test::run_process("webserver-flowsail",
                                          test::write_scenario("webserver-flowsail.yaml", webserver_incast("flowsail")));
  auto sim = test::run(webserver_incast("ideal"));
  ASSERT_TRUE(sim->all_flows_completed());
  const auto ideal = sim->summary();
  ASSERT_EQ(flowsail["flows"]["completed"], flowsail["flows"]["count"]);
  for (const auto& [bucket, metric] : {std::pair<std::string, std::string>{"<10KB", "p99"}, {"1MB-10MB", "avg"}}) {
    const double i = size_bucket(ideal, bucket)["slowdown"][metric].get<double>();
    const double f = size_bucket(flowsail, bucket)["slowdown"][metric].get<double>();
    EXPECT_LE(i, f) << bucket << " " << metric << " slowdown: ideal " << i << ", FlowSail " << f;
  }
}

// Incast through a k=4 fat tree: every flow completes, nothing arrives out of order, and the pauses
// (and, for FlowSail, isolations with Order Marks) actually happened.
nlohmann::json incast(const std::string& mode, const std::string& queues) {
  auto sim = test::run(test::scenario({"topology.fat_tree.k=4", "workload.type=incast", "workload.incast.senders=12",
                                       "workload.size_bytes=262144", "link.rate_gbps=100", "link.prop_delay_ns=1000",
                                       "nic.mtu_bytes=1000", "nic.header_bytes=48", "switch.flow_control=" + mode,
                                       "switch.fc.queues=" + queues}));
  const auto j = sim->summary();
  EXPECT_EQ(j["flows"]["completed"].get<std::uint64_t>(), 12u);
  EXPECT_EQ(j["packets"]["out_of_order"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets"]["dropped"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["flow_control"]["pause_frames"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["flow_control"]["pause_frames"], j["flow_control"]["resume_frames"]) << "every PAUSE was undone";
  return j;
}

TEST(FlowSail, IncastCompletesInOrder) {
  const auto j = incast("flowsail", "8");
  EXPECT_GT(j["flow_control"]["isolations"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["flow_control"]["order_mark_pairs"].get<std::uint64_t>(), 0u);
}

TEST(FlowSail, IncastTwoQueuesCompletesInOrder) { incast("flowsail", "2"); }
TEST(FlowSail, IncastBfcCompletes) { incast("bfc", "8"); }
TEST(FlowSail, IncastPfcCompletes) { incast("pfc", "8"); }

TEST(FlowSail, IncastDrrAndGroups) {
  auto sim = test::run(test::scenario({"topology.fat_tree.k=4", "workload.type=incast", "workload.incast.senders=8",
                                       "workload.size_bytes=131072", "switch.flow_control=flowsail",
                                       "switch.fc.queues=16", "switch.fc.groups=4", "switch.fc.scheduler=drr"}));
  const auto j = sim->summary();
  EXPECT_EQ(j["flows"]["completed"].get<std::uint64_t>(), 8u);
  EXPECT_EQ(j["packets"]["out_of_order"].get<std::uint64_t>(), 0u);
}

TEST(FlowSail, RejectsGroupsThatDoNotDivideTheQueues) {
  EXPECT_THROW(test::run(test::scenario({"switch.flow_control=flowsail", "switch.fc.queues=6", "switch.fc.groups=4"})),
               InputError);
}

TEST(FlowSail, RejectsOneQueue) {
  EXPECT_THROW(test::run(test::scenario({"switch.flow_control=flowsail", "switch.fc.queues=1"})), InputError);
}

TEST(FlowSail, NeedsALosslessFabric) {
  EXPECT_THROW(test::run(test::scenario({"switch.flow_control=flowsail", "link.flow_control=lossy"})), InputError);
}

}  // namespace
}  // namespace netasic
