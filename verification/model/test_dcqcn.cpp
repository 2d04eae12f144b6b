// DCQCN-like congestion control (nic.cc = dcqcn) in a running network: CE marks at the switches, CNPs from
// the destination NIC at most once per flow per nic.dcqcn.cnp_interval_us, rate cuts and pacing at the
// source.
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

std::uint64_t u(const json& j) { return j.get<std::uint64_t>(); }

// 16 senders of 1 MiB into one host on a lossless fabric (k = 8 fat tree, 200 Gb/s links), marking above
// 32 KiB: every byte arrives, nothing is dropped, every CNP sent is received and cuts its flow's rate once,
// and no flow gets more than one CNP per 50 us of its life.
TEST(Dcqcn, LosslessIncastCnpsAreRateLimitedPerFlow) {
  auto sim = run(scenario({"workload.type=incast", "workload.incast.senders=16", "workload.size_bytes=1048576",
                           "nic.transport=gbn", "nic.cc=dcqcn", "switch.ecn_threshold_bytes=32768"}));
  ASSERT_TRUE(sim->all_flows_completed());
  const json j = sim->summary();
  EXPECT_EQ(u(j["bytes"]["delivered"]), 16u * 1048576u);
  EXPECT_EQ(u(j["packets"]["dropped"]), 0u);
  const json& cc = j["congestion_control"];
  EXPECT_EQ(cc["type"], "dcqcn");
  EXPECT_GT(u(j["ecn"]["ce_marks"]), 0u);
  EXPECT_GT(u(cc["cnps_sent"]), 0u);
  EXPECT_EQ(u(cc["cnps_received"]), u(cc["cnps_sent"]));
  EXPECT_EQ(u(cc["rate_cuts"]), u(cc["cnps_received"]));
  // Each flow lives at most max FCT: at most floor(fct / 50 us) + 1 CNPs each.
  const double max_fct_us = j["flows"]["fct_ns"]["max"].get<double>() / 1000;
  EXPECT_LE(u(cc["cnps_sent"]), 16u * (static_cast<std::uint64_t>(max_fct_us / 50) + 1));
  // Fewer CNPs than marks: the interval suppresses most of them.
  EXPECT_LT(u(cc["cnps_sent"]), u(j["ecn"]["ce_marks"]));
  EXPECT_LT(u(cc["rate_min_mbps"]), 200000u);
  // The 16 senders share one 200 Gb/s link: the incast cannot finish faster than 16 MiB at 200 Gb/s.
  EXPECT_GE(j["flows"]["fct_ns"]["max"].get<double>(), 16.0 * 1048576 * 8 / 200);
}

// Without marks the rate stays at the line rate: pacing at it never holds a packet longer than the link
// does (its serialization includes link.overhead_bytes), so one flow finishes when it does with no control.
TEST(Dcqcn, UnmarkedFlowIsPacedAtTheLineRate) {
  const std::string base = "--set workload.type=incast --set workload.incast.senders=1 "
                           "--set workload.size_bytes=4194304 --set nic.transport=gbn";
  const json cc = run_process("dcqcn-one", base + " --set nic.cc=dcqcn");
  const json none = run_process("none-one", base + " --set nic.cc=none");
  EXPECT_EQ(u(cc["congestion_control"]["cnps_sent"]), 0u);
  EXPECT_EQ(u(cc["congestion_control"]["rate_cuts"]), 0u);
  EXPECT_DOUBLE_EQ(cc["flows"]["fct_ns"]["max"].get<double>(), none["flows"]["fct_ns"]["max"].get<double>());
}

// A lower CNP interval lets the destination send more CNPs for the same incast.
TEST(Dcqcn, CnpIntervalBoundsTheCnpCount) {
  const std::string base = "--set workload.type=incast --set workload.incast.senders=8 "
                           "--set workload.size_bytes=1048576 --set nic.transport=gbn --set nic.cc=dcqcn "
                           "--set switch.ecn_threshold_bytes=16384";
  const json wide = run_process("cnp-200", base + " --set nic.dcqcn.cnp_interval_us=200");
  const json narrow = run_process("cnp-5", base + " --set nic.dcqcn.cnp_interval_us=5");
  const double fct_us = wide["flows"]["fct_ns"]["max"].get<double>() / 1000;
  EXPECT_LE(u(wide["congestion_control"]["cnps_sent"]), 8u * (static_cast<std::uint64_t>(fct_us / 200) + 1));
  EXPECT_GT(u(narrow["congestion_control"]["cnps_sent"]), u(wide["congestion_control"]["cnps_sent"]));
}

}  // namespace
}  // namespace netasic
