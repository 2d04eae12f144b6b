// End-to-end transports for lossy fabrics in a running network: selective repeat with direct data
// placement (nic.transport=sr) and DCTCP-like congestion control with ECN marking at the switches
// (nic.cc=dctcp, switch.ecn_threshold_bytes). A test that compares two runs starts the second (or both)
// as a netasic process: SystemC allows one simulation per process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using nlohmann::json;
using test::run;
using test::run_process;
using test::scenario;

const std::string kIncastLossy = std::string(NETASIC_SOURCE_DIR) + "/configs/incast-lossy.yaml";
const std::string kIncastSrDctcp = std::string(NETASIC_SOURCE_DIR) + "/configs/incast-lossy-sr-dctcp.yaml";

Scenario from_file(const std::string& path, std::initializer_list<std::string> extra) {
  Scenario s;
  s.load_yaml_file(path);
  for (const auto& a : extra) s.set_assignment(a);
  return s;
}

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

void expect_complete_in_order(const json& j, std::uint64_t bytes) {
  EXPECT_EQ(u(j["flows"]["completed"]), u(j["flows"]["count"]));
  EXPECT_EQ(u(j["bytes"]["delivered"]), bytes);
  EXPECT_EQ(u(j["packets"]["app_out_of_order"]), 0u);
}

constexpr std::uint64_t kIncastBytes = 32u * 262144u;

// ---- Selective repeat ------------------------------------------------------------------------------------

// 32 senders into one host through 64 KiB drop-tail queues: a third of the packets are dropped. Every flow
// completes, the application sees every byte once and in order, and the holes are mostly found from SACKs.
TEST(SelectiveRepeat, LossyIncastCompletesInOrder) {
  auto sim = run(from_file(kIncastLossy, {"nic.transport=sr"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, kIncastBytes);
  const json& sr = j["selective_repeat"];
  EXPECT_GT(u(j["packets"]["dropped_by_switches"]), 500u);
  EXPECT_GT(u(sr["fast_retransmits"]), 100u);
  EXPECT_GT(u(sr["retransmitted_bytes"]), 0u);
  EXPECT_EQ(sr["retransmitted_bytes"], j["bytes"]["retransmitted"]);
  // Packets carry their offset: a gap is a set of ranges, not a buffer. The SACKs carried them.
  EXPECT_GT(u(sr["max_ranges_per_flow"]), 1u);
  EXPECT_GT(u(sr["sack_ranges_sent"]), 0u);
  EXPECT_EQ(u(sr["sacks"]), u(j["packets"]["delivered"]));  // one per data packet (no ACK lost here)
  // ECMP keeps each flow on one path: a hole is a loss, so (almost) no resend is spurious.
  EXPECT_LE(u(sr["spurious_retransmissions"]) * 100, u(j["packets"]["retransmitted"]));
}

// The same scenario and seed under go-back-N resends every packet after a gap; selective repeat only the
// holes.
TEST(SelectiveRepeat, ResendsFewerBytesThanGoBackN) {
  const json sr = run_process("sr", kIncastLossy + " --set nic.transport=sr");
  const json gbn = run_process("gbn", kIncastLossy + " --set nic.transport=gbn");
  expect_complete_in_order(sr, kIncastBytes);
  expect_complete_in_order(gbn, kIncastBytes);
  // Both runs lost packets and received later ones past the holes: order at the application was earned.
  EXPECT_GT(u(sr["packets"]["out_of_order"]), 0u);
  EXPECT_GT(u(gbn["packets"]["out_of_order"]), 0u);
  EXPECT_GT(u(sr["bytes"]["retransmitted"]), 0u);
  EXPECT_GT(u(gbn["bytes"]["retransmitted"]), 0u);
  EXPECT_LT(u(sr["bytes"]["retransmitted"]) * 4, u(gbn["bytes"]["retransmitted"]) * 3);
  EXPECT_LT(sr["selective_repeat"]["waste_fraction"].get<double>(), gbn["go_back_n"]["waste_fraction"].get<double>());
  EXPECT_LT(u(sr["sim_time_ns"]), u(gbn["sim_time_ns"]));
}

// The single-circuit crossbar (switch.crossbar=single), for which the figures below were measured: the
// tiled crossbar reorders the same flows to the same maximum degree (5), and spuriously resends 72 of
// 4,168 packets instead of 23 of 4,119.
Scenario spraying(std::initializer_list<std::string> extra) {
  Scenario s = scenario({"topology.fat_tree.k=4", "workload.size_bytes=1048576", "nic.transport=sr",
                         "nic.window_bytes=65536", "routing.policy=spray", "switch.crossbar=single"});
  for (const auto& a : extra) s.set_assignment(a);
  return s;
}

// Spraying on a lossless fabric reorders each flow by up to 5 packets here. With the default duplicate
// threshold (3) a packet overtaken by 3 later ones is taken for lost: a few resends, every one spurious
// (nothing is lost), under 1% of the packets.
TEST(SelectiveRepeat, SprayingOnALosslessFabricResendsLittle) {
  auto sim = run(spraying({}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, 16u << 20);
  EXPECT_EQ(u(j["packets"]["dropped"]), 0u);
  EXPECT_GT(u(j["packets"]["out_of_order"]), 100u);
  const std::uint64_t spurious = u(j["selective_repeat"]["spurious_retransmissions"]);
  EXPECT_LE(spurious, u(j["packets"]["retransmitted"]));
  EXPECT_LE(spurious * 100, u(j["packets"]["injected"]));
  EXPECT_EQ(u(j["selective_repeat"]["timeout_retransmits"]), 0u);  // no timer on a lossless fabric
}

// A threshold above the fabric's reordering degree never resends.
TEST(SelectiveRepeat, ThresholdAboveTheReorderingDegreeNeverResends) {
  auto sim = run(spraying({"nic.sr.dupthresh=8"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, 16u << 20);
  EXPECT_LT(u(j["packets"]["max_ooo_degree"]), 8u);
  EXPECT_GT(u(j["packets"]["out_of_order"]), 100u);
  EXPECT_EQ(u(j["selective_repeat"]["fast_retransmits"]), 0u);
  EXPECT_EQ(u(j["packets"]["retransmitted"]), 0u);
  EXPECT_EQ(u(j["selective_repeat"]["spurious_retransmissions"]), 0u);
}

// SACKs of a single range (the one holding the packet acknowledged) still recover every loss.
TEST(SelectiveRepeat, OneRangePerSackStillRecovers) {
  auto sim = run(from_file(kIncastLossy, {"nic.transport=sr", "nic.sr.sack_blocks=1"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, kIncastBytes);
  // There was something to recover: drops, packets past the holes, and resends.
  EXPECT_GT(u(j["packets"]["dropped_by_switches"]), 0u);
  EXPECT_GT(u(j["packets"]["out_of_order"]), 0u);
  EXPECT_GT(u(j["packets"]["retransmitted"]), 0u);
  const json& sr = j["selective_repeat"];
  EXPECT_LE(u(sr["sack_ranges_sent"]), u(sr["sacks"]));
  EXPECT_GT(u(sr["sack_ranges_sent"]), 0u);
}

// ---- DCTCP-like congestion control -----------------------------------------------------------------------

// The incast of configs/incast-lossy-sr-dctcp.yaml, with and without congestion control: with ECN marking
// and DCTCP windows the queue stays at the first round's burst and nothing is dropped; without, the queue
// fills and drops.
TEST(Dctcp, EcnKeepsTheIncastQueueShortAndDropsNothing) {
  const json cc = run_process("dctcp", kIncastSrDctcp);
  const json none = run_process("none", kIncastSrDctcp + " --set nic.cc=none");
  expect_complete_in_order(cc, kIncastBytes);
  expect_complete_in_order(none, kIncastBytes);
  EXPECT_GT(u(none["packets"]["dropped"]), 500u);
  EXPECT_LE(u(cc["packets"]["dropped"]) * 20, u(none["packets"]["dropped"]));
  EXPECT_LE(u(cc["ports"]["max_queue_bytes"]) * 10, u(none["ports"]["max_queue_bytes"]) * 6);
  EXPECT_LT(u(cc["bytes"]["retransmitted"]) * 20, u(none["bytes"]["retransmitted"]));
  EXPECT_GT(u(cc["ecn"]["ce_marks"]), 0u);
  EXPECT_EQ(u(none["ecn"]["ce_marks"]), 0u);  // no ECT, no marks
}

// Alpha is the moving average of the marked fraction: at the end of the incast it is close to the share of
// data packets the switches marked. Every marked packet reached its receiver and was echoed.
TEST(Dctcp, AlphaFollowsTheMarkedFraction) {
  auto sim = run(from_file(kIncastSrDctcp, {}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, kIncastBytes);
  const json& cc = j["congestion_control"];
  const std::uint64_t marks = u(j["ecn"]["ce_marks"]);
  EXPECT_GT(marks, 100u);
  EXPECT_EQ(u(cc["ece_acks"]), marks);  // one SACK per data packet, none lost: each mark echoed once
  EXPECT_GT(u(cc["window_cuts"]), 0u);
  EXPECT_EQ(u(cc["window_min_bytes"]), 4096u);  // down to one MTU
  const double fraction = static_cast<double>(marks) / static_cast<double>(u(j["packets"]["delivered"]));
  EXPECT_NEAR(cc["alpha_final_avg"].get<double>(), fraction, 0.15);
  EXPECT_LT(cc["alpha_final_avg"].get<double>(), 1.0);
}

// Without marking, alpha only decays from its initial 1 and no window is cut (the fabric is lossless, so
// no timeout either).
TEST(Dctcp, WithoutMarksAlphaDecaysAndNothingIsCut) {
  auto sim = run(scenario({"workload.type=incast", "workload.incast.senders=32", "workload.size_bytes=262144",
                           "nic.transport=sr", "nic.cc=dctcp"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  expect_complete_in_order(j, kIncastBytes);
  EXPECT_EQ(u(j["ecn"]["ce_marks"]), 0u);
  EXPECT_EQ(u(j["congestion_control"]["window_cuts"]), 0u);
  EXPECT_EQ(u(j["congestion_control"]["ece_acks"]), 0u);
  // Every flow saw at least 4 windows of data: alpha <= (15/16)^4 = 0.77.
  EXPECT_LT(j["congestion_control"]["alpha_final_max"].get<double>(), 0.78);
  EXPECT_GE(u(j["congestion_control"]["alpha_updates"]), 4u * 32u);
  EXPECT_EQ(u(j["congestion_control"]["window_min_bytes"]), 16384u);  // never below the initial window
}

// On a lossless fabric the incast backs up into the switches' buffers instead of dropping; ECN marking
// keeps that backlog down too.
TEST(Dctcp, EcnBoundsTheBacklogOnALosslessFabric) {
  const std::string base =
      "--set workload.type=incast --set workload.incast.senders=32 --set workload.size_bytes=262144 "
      "--set nic.transport=sr --set switch.ecn_threshold_bytes=32768 --set nic.dctcp.initial_window_bytes=4096";
  const json cc = run_process("lossless-dctcp", base + " --set nic.cc=dctcp");
  const json none = run_process("lossless-none", base + " --set nic.cc=none");
  expect_complete_in_order(cc, kIncastBytes);
  expect_complete_in_order(none, kIncastBytes);
  EXPECT_LE(u(cc["ports"]["max_queue_bytes"]) * 3, u(none["ports"]["max_queue_bytes"]));
  EXPECT_GT(u(cc["ecn"]["ce_marks"]), 0u);
}

// Congestion control sits beside the transport: the same incast completes with it under go-back-N, the
// rearrange engine and the basic transport, with marks echoed and nothing dropped.
void dctcp_with(const std::string& transport) {
  auto sim = run(from_file(kIncastSrDctcp, {"nic.transport=" + transport}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), kIncastBytes);
  EXPECT_EQ(u(j["packets"]["dropped"]), 0u);
  EXPECT_GT(u(j["ecn"]["ce_marks"]), 0u);
  EXPECT_GT(u(j["congestion_control"]["ece_acks"]), 0u);
  EXPECT_GT(u(j["congestion_control"]["window_cuts"]), 0u);
}

TEST(Dctcp, WorksWithGoBackN) { dctcp_with("gbn"); }
TEST(Dctcp, WorksWithTheReorderEngine) { dctcp_with("reorder"); }
TEST(Dctcp, WorksWithTheBasicTransport) { dctcp_with("basic"); }

}  // namespace
}  // namespace netasic
