// Telemetry routing (routing.policy = telemetry) in a running network: the accumulated queuing delay a
// packet carries, PTMs and PTRs on lossy links, and the workload patterns' connections.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using nlohmann::json;
using test::run;
using test::scenario;
using test::write_temp;

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

// A two-switch line: hosts 0 and 1 on switch 3, host 2 on switch 4, 100 Gb/s links. Hosts 0 and 1 each send
// n = 100 packets of 1024 + 64 bytes to host 2 from time 0, back to back: the link 3->4 gets two packets per
// T = (1024 + 64 + 20) x 8 / 100 ns = 88.64 ns and sends one, so packet j of each flow leaves in slot 2j or
// 2j + 1 and waits jT or (j + 1)T; switch 4 then forwards one packet per T with no wait. The last packets of
// the two flows met (n - 1)T = 8775.36 ns and nT = 8864 ns of queuing: the destination holds them for the
// flows' ACKs. The sources have seen the delays of earlier packets by then (the run ends when the last byte
// arrives, with the last ACKs in flight): less than nT but more than half of it (a round trip is far shorter
// than the flow). (One probe candidate and no initial probes: no PTM shares the link.)
TEST(Telemetry, AccumulatedDelayIsTheQueueOnTheLine) {
  const std::string topo = write_temp("telemetry_line.txt",
                                      "5 2 4\n3 4\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                                      "2 4 100Gbps 1000ns 0\n3 4 100Gbps 1000ns 0\n");
  auto sim = run(scenario({"topology.type=file", "topology.file=" + topo, "routing.policy=telemetry",
                           "routing.telemetry.candidates=1", "routing.telemetry.initial_probes=0",
                           "workload.type=incast", "workload.incast.senders=2", "workload.incast.destination=2",
                           "workload.size_bytes=102400", "nic.mtu_bytes=1024", "nic.transport=sr"}));
  ASSERT_TRUE(sim->all_flows_completed());
  std::vector<double> at_destination;
  for (const Flow& f : sim->flows().flows()) {
    at_destination.push_back(f.tm_rx_delay_ns);
    const TelemetryNic* tm = sim->nics()[f.src]->telemetry();
    ASSERT_NE(tm, nullptr);
    const double seen = static_cast<double>(tm->selector(f)->current_delay()) / 1000.0;
    EXPECT_LT(seen, 100 * 88.64);
    EXPECT_GT(seen, 50 * 88.64);
  }
  ASSERT_EQ(at_destination.size(), 2u);
  std::sort(at_destination.begin(), at_destination.end());
  // Each switch rounds its share to the nanosecond and its events fall on its 1 GHz clock: 2 ns apart at most.
  EXPECT_NEAR(at_destination[0], 99 * 88.64, 2.0);
  EXPECT_NEAR(at_destination[1], 100 * 88.64, 2.0);
  EXPECT_EQ(u(sim->summary()["telemetry"]["ptms_sent"]), 0u);
}

// The same line, with one more candidate (on a topology without groups it is the same path) and a PTM every
// delta3 = 20 data packets. A PTM waits in the data queues, as data would, so its PTR brings back the data
// queue it met; the line's data queue grows to about 100 T (previous test). Sent at control priority, a PTM
// would pass the data queue and wait at most for the packet on the wire at each of the two switches: 2 T
// (T = 88.64 ns). The PTRs' average is asserted above twice that.
TEST(Telemetry, PtmsMeasureTheDataQueue) {
  const std::string topo = write_temp("telemetry_line_ptm.txt",
                                      "5 2 4\n3 4\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                                      "2 4 100Gbps 1000ns 0\n3 4 100Gbps 1000ns 0\n");
  auto sim = run(scenario({"topology.type=file", "topology.file=" + topo, "routing.policy=telemetry",
                           "routing.telemetry.candidates=2", "routing.telemetry.initial_probes=0",
                           "routing.telemetry.delta3=20", "workload.type=incast", "workload.incast.senders=2",
                           "workload.incast.destination=2", "workload.size_bytes=102400", "nic.mtu_bytes=1024",
                           "nic.transport=sr"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  const json& tm = j["telemetry"];
  ASSERT_GE(u(tm["ptrs_received"]), 6u);
  EXPECT_GT(tm["ptr_delay_avg_ns"].get<double>(), 4 * 88.64);
}

// A leaf-spine of 2 leaves and 2 spines where every link loses 1% of the packets at random, under
// selective repeat: every byte arrives once and in order to the application, some PTMs or PTRs are lost
// and their rounds end on the timeout, and probing goes on to the end: with no congestion window a PTM
// leaves every delta3 = 20 data packets, so a flow that sent n data packets sent 3 + floor(n / 20) PTMs.
TEST(Telemetry, OnePercentLossEveryByteDeliveredAndProbingNeverStalls) {
  std::string topo = "8 4 8\n4 5 6 7\n";
  for (const char* l : {"0 4", "1 4", "2 5", "3 5", "4 6", "4 7", "5 6", "5 7"})
    topo += std::string(l) + " 100Gbps 1000ns 0.01\n";
  const std::string file = write_temp("telemetry_lossy.txt", topo);
  auto sim = run(scenario({"topology.type=file", "topology.file=" + file, "routing.policy=telemetry",
                           "routing.telemetry.candidates=4", "routing.telemetry.initial_probes=3",
                           "routing.telemetry.delta3=20", "routing.telemetry.probe_timeout_us=50",
                           "link.flow_control=lossy", "workload.type=permutation", "workload.size_bytes=2097152",
                           "nic.mtu_bytes=1024", "nic.transport=sr", "nic.rto_us=100"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 4u * 2097152u);
  EXPECT_EQ(u(j["packets"]["app_out_of_order"]), 0u);
  EXPECT_GT(u(j["bytes"]["retransmitted"]), 0u);  // the links did lose packets
  const json& tm = j["telemetry"];
  EXPECT_LT(u(tm["ptrs_received"]), u(tm["ptms_sent"]));
  EXPECT_GT(u(tm["rounds_timed_out"]), 0u);
  std::uint64_t expected = 0;
  for (const Flow& f : sim->flows().flows()) {
    const std::uint64_t sent = f.packets + f.retransmits;
    expected += 3 + sent / 20;
  }
  EXPECT_EQ(u(tm["ptms_sent"]), expected);
}

// ADV1 on D1 (9 groups, 72 hosts, 100 Gb/s): every connection leaves one group for another, so shortest
// paths share one global link; the telemetry scheme spreads them over intermediate groups and delivers more
// than that link's rate, as the paper's Figure 5b.
TEST(Telemetry, Adv1OnD1BeatsTheDirectGlobalLink) {
  auto sim = run(scenario({"topology.type=dragonfly", "topology.dragonfly.a=4", "topology.dragonfly.p=2",
                           "topology.dragonfly.h=2", "topology.dragonfly.groups=9", "link.rate_gbps=100", "link.flow_control=lossy",
                           "switch.egress_queue_bytes=1048576", "switch.ecn_threshold_bytes=131072",
                           "routing.policy=telemetry", "nic.transport=sr", "nic.cc=dctcp", "nic.mtu_bytes=1024",
                           "nic.rto_us=200", "workload.pattern=adv1", "workload.pairs=32",
                           "workload.size_bytes=1048576"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 32u * 1048576u);
  // One global link carries at most 100 Gb/s of frames, less of payload.
  EXPECT_GT(j["throughput"]["aggregate_gbps"].get<double>(), 150.0);
  EXPECT_GT(u(j["throughput"]["path_switches_total"]), 0u);
  EXPECT_EQ(j["throughput"]["path_switches_per_flow"].size(), 32u);
  // One path at a time under LERP: in the order a flow's data packets left (resends included), the port
  // changed exactly once per path switch (never back and forth between an old and a new path).
  for (const Flow& f : sim->flows().flows()) {
    const TelemetryNic* tm = sim->nics()[f.src]->telemetry();
    EXPECT_LE(tm->sent_port_changes(f), f.path_changes) << "flow " << f.id;
    EXPECT_LE(tm->selector(f)->switches(), f.path_changes);
  }
}

}  // namespace
}  // namespace netasic
