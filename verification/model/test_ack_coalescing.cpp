// ACK coalescing for the cumulative transports (nic.ack_every, nic.ack_delay_us; AckCoalescer in
// tlm/model/transport.h). Bounds from packet counts and the configured delay.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "tlm/common/error.h"
#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using nlohmann::json;
using test::run;
using test::scenario;
using test::two_hosts_topology;
using test::write_temp;

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

// On a loss-free path every packet is in order: one ACK per ack_every packets and one for a flow's last
// packet, ceil(packets / ack_every) per flow, none sent by the timer.
void expect_one_ack_per_n(const std::string& transport) {
  const std::uint32_t sizes[] = {10, 7, 1, 9, 12};
  const std::uint32_t every = 3;
  std::string flows = "5\n";
  std::uint64_t expected = 0;
  for (std::uint32_t p : sizes) {
    flows += "0 1 3 100 " + std::to_string(p * 4096) + " 0\n";
    expected += (p + every - 1) / every;
  }
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("ac.txt", 1), "workload.type=file",
                           "workload.file=" + write_temp("ac_flows.txt", flows), "nic.transport=" + transport,
                           "nic.ack_every=" + std::to_string(every), "nic.ack_delay_us=1000"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["packets"]["control_sent"]), expected);
  const json& t = j[transport == "gbn" ? "go_back_n" : "selective_repeat"];
  EXPECT_EQ(u(t["acks_on_delay"]), 0u);
  EXPECT_EQ(u(t["acks_coalesced"]), 39u - expected);  // 39 packets, each answered or waiting
  EXPECT_EQ(u(j["packets"]["out_of_order"]), 0u);
}

TEST(AckCoalescing, GoBackNOneAckPerNPackets) { expect_one_ack_per_n("gbn"); }
TEST(AckCoalescing, SelectiveRepeatOneSackPerNPackets) { expect_one_ack_per_n("sr"); }

// A window of two packets with ack_every 4: the receiver never has four waiting, so each of the first
// three rounds of two is answered when nic.ack_delay_us (20 us) expires; the last round ends with the
// flow's last packet, answered at once. The flow takes at least those three delays.
TEST(AckCoalescing, TheDelayAnswersWhatAWindowHoldsBack) {
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("acd.txt", 1), "workload.type=file",
                           "workload.file=" + write_temp("acd_flows.txt", "1\n0 1 3 100 32768 0\n"),
                           "nic.transport=gbn", "nic.window_bytes=8192", "nic.ack_every=4", "nic.ack_delay_us=20"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["go_back_n"]["acks_on_delay"]), 3u);
  EXPECT_EQ(u(j["packets"]["control_sent"]), 4u);
  const Flow& f = sim->flows().flows().at(0);
  EXPECT_GE(f.finish - f.start, Ps{3 * 20} * kPsPerUs);
}

// Selective repeat with coalesced SACKs over a link that corrupts 2% of the packets: holes are answered
// at once, every byte is delivered in order.
TEST(AckCoalescing, SelectiveRepeatRecoversLossesWithCoalescedSacks) {
  const std::uint64_t size = 4u << 20;
  auto sim = run(scenario({"topology.type=file", "topology.file=" + two_hosts_topology("acl.txt", 1, 0.02), "workload.type=file",
                           "workload.file=" + write_temp("acl_flows.txt", "2\n0 1 3 100 4194304 0\n0 1 3 100 4194304 0\n"),
                           "nic.transport=sr", "nic.ack_every=8", "nic.ack_delay_us=5", "nic.rto_us=50"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 2 * size);
  EXPECT_EQ(u(j["packets"]["app_out_of_order"]), 0u);
  EXPECT_GT(u(j["packets"]["corrupted_on_links"]), 0u);
  EXPECT_GT(u(j["selective_repeat"]["acks_coalesced"]), 0u);
  EXPECT_LT(u(j["packets"]["control_sent"]), u(j["packets"]["injected"]) / 2);
}

TEST(AckCoalescing, RefusedForTransportsThatAcknowledgeEachPacket) {
  for (const char* t : {"basic", "reorder", "tcp"})
    EXPECT_THROW(run(scenario({std::string("nic.transport=") + t, "nic.ack_every=2"})), InputError) << t;
}

}  // namespace
}  // namespace netasic
