// The tcp transport (nic.transport = tcp) in a running network. Every bound comes from the scenario's own
// figures (link delays and rates, switch latency, packet counts), never from an earlier run.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "tlm/common/error.h"
#include "tlm/model/nic.h"
#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using nlohmann::json;
using test::run;
using test::run_process;
using test::scenario;
using test::two_hosts_topology;
using test::write_temp;

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

// Slow start on an idle path: from 2 packets, doubling per round trip, 62 packets take 5 rounds (2 + 4 + 8 +
// 16 + 32). The last packet arrives 4 round trips plus one one-way trip after the first left (plus the
// last round's serialization); growing by half per round (one segment per delayed ACK) would take 7.
TEST(Tcp, SlowStartDoublesTheWindowPerRoundTrip) {
  const std::uint32_t packets = 62, mss = 4096;
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("ss.txt", 10, 0, 0), "workload.type=file",
                           "workload.file=" + write_temp("ss_flows.txt", "1\n0 1 3 100 " +
                                                                             std::to_string(packets * mss) + " 0\n"),
                           "nic.transport=tcp", "nic.tcp.ack_every=1", "nic.tcp.initial_window_bytes=8192"}));
  const Flow& f = sim->flows().flows().at(0);
  ASSERT_TRUE(f.done());
  const double prop_us = 10, switch_us = 0.35;
  const double data_ser_us = (mss + 64 + 20) * 8 / 100e3, ack_ser_us = (64 + 20) * 8 / 100e3;
  const double rtt_low = 4 * prop_us, rtt_high = rtt_low + 2 * switch_us + 2 * data_ser_us + 2 * ack_ser_us;
  const int rounds = 5;
  const double fct_us = ps_to_ns(f.finish - f.start) / 1000;
  EXPECT_GE(fct_us, (rounds - 1) * rtt_low + rtt_low / 2);
  EXPECT_LE(fct_us, (rounds - 1) * rtt_high + rtt_high / 2 + packets * data_ser_us);
  // One segment more per packet acknowledged: when the last packet arrives (the run ends there), the ACKs
  // of the first four rounds are back and the window is the last round's, 2 x 2^4 packets.
  const TcpReno* w = sim->nics().at(0)->transport().tcp_window(f);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->cwnd(), std::uint64_t{2} * mss << (rounds - 1));
  EXPECT_EQ(w->fast_retransmits() + w->timeouts(), 0u);
}

// Delayed ACKs on a loss-free path: one ACK per ack_every in-order packets, the remainder acknowledged by
// the timer: ceil(packets / ack_every) per flow. The run ends when the last byte is delivered: a last flow
// the other way, starting long after the timers are due, of a whole number of ACKs, keeps it going.
TEST(Tcp, DelayedAcksOnePerAckEveryPackets) {
  const std::uint32_t sizes[] = {10, 7, 1, 9};
  const std::uint32_t every = 3;
  std::string flows = "5\n";
  std::uint64_t expected = 0, by_timer = 0;
  for (std::uint32_t p : sizes) {
    flows += "0 1 3 100 " + std::to_string(p * 4096) + " 0\n";
    expected += (p + every - 1) / every;
    by_timer += p % every ? 1 : 0;
  }
  flows += "1 0 3 100 " + std::to_string(every * 4096) + " 0.001\n";
  expected += 1;
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("da.txt", 1, 0, 0), "workload.type=file",
                           "workload.file=" + write_temp("da_flows.txt", flows), "nic.transport=tcp",
                           "nic.tcp.ack_every=3", "nic.tcp.delayed_ack_us=50", "nic.tcp.initial_window_bytes=1048576"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["tcp"]["acks"]), expected);
  EXPECT_EQ(u(j["tcp"]["delayed_acks"]), by_timer);
  EXPECT_EQ(u(j["packets"]["out_of_order"]), 0u);
}

// One-packet flows over a link that loses 30% of packets: no duplicate ACK can come, so a lost packet (or
// ACK) is found by the timer alone. Before any RTT sample the timeout is nic.tcp.min_rto_us and doubles per
// expiry, so a flow whose m-th transmission arrives first finishes (2^(m-1) - 1) timeouts' worth later than
// one whose first did: (2^(m-1) - 1) x min RTO after it, exactly (the path is idle).
TEST(Tcp, TimeoutRespectsTheMinimumAndBacksOff) {
  const int n = 40;
  const double min_rto_us = 100;
  std::string flows = std::to_string(n) + "\n";
  for (int i = 0; i < n; ++i) flows += "0 1 3 100 4096 " + std::to_string(0.02 * i) + "\n";
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("rto.txt", 1, 0.3, 0),
                           "workload.type=file", "workload.file=" + write_temp("rto_flows.txt", flows),
                           "nic.transport=tcp", "nic.tcp.ack_every=1", "nic.tcp.min_rto_us=100"}));
  ASSERT_TRUE(sim->all_flows_completed());
  Ps fastest = kNever;
  for (const Flow& f : sim->flows().flows()) fastest = std::min(fastest, f.finish - f.start);
  int late = 0;
  for (const Flow& f : sim->flows().flows()) {
    const double extra = static_cast<double>(f.finish - f.start - fastest) / (min_rto_us * kPsPerUs);
    const double m = std::round(std::log2(extra + 1));
    EXPECT_NEAR(extra, std::exp2(m) - 1, 1e-4) << "flow " << f.id;
    late += m >= 1 ? 1 : 0;
  }
  EXPECT_GE(late, 3);  // about 30% of 40
  EXPECT_LE(late, n - 10);
  EXPECT_GE(u(sim->summary()["tcp"]["timeouts"]), static_cast<std::uint64_t>(late));
}

// A lossy link both ways (1% of data and ACK packets): every byte reaches the application once, in order,
// the losses repaired mostly by fast retransmit.
TEST(Tcp, LossyLinkDeliversEveryByteInOrder) {
  const std::uint64_t size = 4 << 20;
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("lossy.txt", 1, 0.01, 0.01),
                           "workload.type=file",
                           "workload.file=" + write_temp("lossy_flows.txt", "2\n0 1 3 100 4194304 0\n1 0 3 100 4194304 0\n"),
                           "nic.transport=tcp", "nic.tcp.min_rto_us=1000", "nic.tcp.delayed_ack_us=100"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 2 * size);
  EXPECT_EQ(u(j["packets"]["app_out_of_order"]), 0u);
  EXPECT_GT(u(j["packets"]["corrupted_on_links"]), 20u);
  EXPECT_GT(u(j["tcp"]["fast_retransmits"]), 0u);
  EXPECT_GT(u(j["tcp"]["retransmitted_bytes"]), 0u);
  for (const Flow& f : sim->flows().flows()) EXPECT_EQ(f.delivered_bytes, size);
}

// With nic.cc = dctcp the DCTCP window bounds the TCP window: on the incast of
// configs/incast-lossy-sr-dctcp.yaml, ECN marks cut the windows before the 256 KiB queues overflow, so
// far fewer packets are dropped than with loss as the only signal.
TEST(Tcp, DctcpMarksCutBeforeLoss) {
  const std::string incast = std::string(NETASIC_SOURCE_DIR) + "/configs/incast-lossy-sr-dctcp.yaml";
  const std::string tcp = " --set nic.transport=tcp --set nic.tcp.min_rto_us=1000";
  const json cc = run_process("tcp-dctcp", incast + tcp);
  const json none = run_process("tcp-none", incast + tcp + " --set nic.cc=none");
  for (const json* j : {&cc, &none}) {
    EXPECT_EQ(u((*j)["flows"]["completed"]), 32u);
    EXPECT_EQ(u((*j)["bytes"]["delivered"]), 32u * 262144u);
    EXPECT_EQ(u((*j)["packets"]["app_out_of_order"]), 0u);
  }
  EXPECT_GT(u(none["packets"]["dropped"]), 0u);
  EXPECT_LE(u(cc["packets"]["dropped"]) * 4, u(none["packets"]["dropped"]));
  EXPECT_GT(u(cc["congestion_control"]["window_cuts"]), 0u);
}

// Selective acknowledgements (nic.tcp.sack): one 1 MiB flow whose first window (32 packets at 100 Gb/s)
// meets a 10 Gb/s link behind a 128 KiB drop-tail queue: slow start overshoots and many packets of one
// window are dropped. NewReno repairs one hole per round trip (partial ACKs); the SACK sender repairs
// several per round trip from its scoreboard (cwnd - pipe), so it has nothing left to repair long before
// NewReno and finishes sooner, with no timeout.
TEST(Tcp, SackRepairsSeveralHolesPerRoundTripWithoutTimeout) {
  const std::uint64_t size = 1 << 20;
  const std::string topo = write_temp("sack_topo.txt", "3 1 2\n2\n0 2 100Gbps 2us 0\n1 2 10Gbps 2us 0\n");
  const std::string flows = write_temp("sack_flows.txt", "1\n0 1 3 100 " + std::to_string(size) + " 0\n");
  const std::string args = "--set topology.type=file --set topology.file=" + topo +
                           " --set workload.type=file --set workload.file=" + flows +
                           " --set nic.transport=tcp --set nic.tcp.min_rto_us=1000 --set nic.tcp.delayed_ack_us=100"
                           " --set link.flow_control=lossy --set switch.egress_queue_bytes=131072"
                           " --set nic.tcp.initial_window_bytes=131072 --set nic.window_bytes=262144";
  const json sack = run_process("tcp-sack", args + " --set nic.tcp.sack=true");
  const json newreno = run_process("tcp-newreno", args);
  for (const json* j : {&sack, &newreno}) {
    EXPECT_EQ(u((*j)["flows"]["completed"]), 1u);
    EXPECT_EQ(u((*j)["bytes"]["delivered"]), size);
    EXPECT_EQ(u((*j)["packets"]["app_out_of_order"]), 0u);
  }
  const json& s = sack["tcp"];
  const json& n = newreno["tcp"];
  // Many packets of one window lost, on both.
  EXPECT_GE(u(sack["packets"]["dropped"]), 10u);
  EXPECT_GE(u(newreno["packets"]["dropped"]), 10u);
  // NewReno: one hole per partial ACK, i.e. per round trip.
  EXPECT_EQ(n.count("sack_recoveries"), 0u);
  EXPECT_GE(u(n["partial_ack_retransmits"]), 10u);
  // SACK: no timeout, several holes per recovery, and every loss repaired by a SACK retransmission.
  EXPECT_EQ(u(s["timeouts"]), 0u);
  EXPECT_EQ(u(s["partial_ack_retransmits"]), 0u);
  EXPECT_GE(u(s["sack_recoveries"]), 1u);
  EXPECT_GE(u(s["sack_retransmits"]), 4 * u(s["sack_recoveries"]));
  EXPECT_GE(u(s["sack_retransmits"]), u(sack["packets"]["dropped"]));
  EXPECT_GT(u(s["sack_blocks_sent"]), 0u);
  // Finishes sooner: NewReno spends a round trip (at least 4 x 2 us of propagation) per hole.
  const double sack_us = sack["sim_time_ns"].get<double>() / 1000;
  const double newreno_us = newreno["sim_time_ns"].get<double>() / 1000;
  EXPECT_LT(sack_us, newreno_us);
  // The 10 Gb/s link is the bound: 256 packets of 4096 + 64 + 20 bytes take 856 us; SACK within 10% of it.
  EXPECT_LT(sack_us, 1.1 * 256 * (4096 + 64 + 20) * 8 / 10e3);
}

// With nic.tcp.sack, a lossy link both ways (2% of data packets and of ACKs, SACK blocks lost with them):
// every byte reaches the application exactly once, in order; ACKs carry blocks and recoveries resend
// holes from the scoreboard.
TEST(Tcp, SackLossyLinkDeliversEveryByteOnce) {
  const std::uint64_t size = 4 << 20;
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("sack_lossy.txt", 1, 0.02, 0.02),
                           "workload.type=file",
                           "workload.file=" + write_temp("sack_lossy_flows.txt",
                                                         "3\n0 1 3 100 4194304 0\n1 0 3 100 4194304 0\n0 1 3 100 4194304 0\n"),
                           "nic.transport=tcp", "nic.tcp.sack=true", "nic.tcp.sack_blocks=4", "nic.tcp.min_rto_us=1000",
                           "nic.tcp.delayed_ack_us=100"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 3 * size);
  EXPECT_EQ(u(j["packets"]["app_out_of_order"]), 0u);
  EXPECT_GT(u(j["packets"]["corrupted_on_links"]), 50u);
  EXPECT_EQ(u(j["tcp"]["sack_blocks"]), 4u);
  EXPECT_GT(u(j["tcp"]["sack_blocks_sent"]), 0u);
  EXPECT_GT(u(j["tcp"]["sack_recoveries"]), 0u);
  EXPECT_GT(u(j["tcp"]["sack_retransmits"]), u(j["tcp"]["sack_recoveries"]));
  for (const Flow& f : sim->flows().flows()) {
    EXPECT_EQ(f.delivered_bytes, size);
    EXPECT_TRUE(f.done());
  }
}

TEST(Tcp, RejectsDcqcn) {
  EXPECT_THROW(run(scenario({"nic.transport=tcp", "nic.cc=dcqcn"})), InputError);
}

}  // namespace
}  // namespace netasic
