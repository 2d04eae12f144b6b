// The analytic sizing model (`netasic size`): eq. 1 of the Flowcut paper, Table III's bytes per flow,
// the FlowSail table as the block models it, and reorder memory (Martinez et al.).
#include <gtest/gtest.h>

#include "tb/sizing/analytic.h"
#include "tlm/blocks/flowsail.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic::sizing {
namespace {

SizeInputs inputs(std::initializer_list<std::string> assignments) {
  SizeInputs in;
  for (const auto& a : assignments) in.set_assignment(a);
  return in;
}

// B*L/M = 200 Gb/s * 4.096 us / 4096 B = 25 packets per host, an integer to compare exactly.
const std::initializer_list<std::string> kBase = {"hosts=1024", "hosts_per_switch=8", "link_gbps=200",
                                                  "latency_us=4.096", "mtu_bytes=4096", "key_bytes=0"};

TEST(SizeAnalytic, Equation1) {
  SizeInputs in = inputs(kBase);
  in.set("flows_per_host", "1000");
  const SizeResult r = compute(in);
  EXPECT_NEAR(r.packets_in_flight_per_host, 25.0, 1e-9);
  EXPECT_NEAR(r.active_flows_per_host, 25.0, 1e-9);
  EXPECT_NEAR(r.active_flows, 1024 * 25.0, 1e-6);
  in.set("flows_per_host", "10");  // F < B*L/M: every flow is active
  EXPECT_NEAR(compute(in).active_flows, 1024 * 10.0, 1e-6);
}

TEST(SizeAnalytic, TableIIIBytesPerFlow) {
  SizeInputs in = inputs(kBase);
  in.set("flows_per_host", "1000");
  const SizeResult r = compute(in);
  EXPECT_EQ(r.row("full_switch").bytes_per_entry, 11);
  EXPECT_EQ(r.row("ingress_only").bytes_per_entry, 10);
  EXPECT_EQ(r.row("nic_only").bytes_per_entry, 10);
  EXPECT_EQ(r.row("flowlet").bytes_per_entry, 5);
  EXPECT_EQ(r.row("flowcell").bytes_per_entry, 2);
  EXPECT_EQ(r.row("full_switch").bytes, 25600 * 11);
  EXPECT_EQ(r.row("ingress_only").bytes, 8 * 25 * 10);
  EXPECT_EQ(r.row("nic_only").bytes, 25 * 10);
  EXPECT_EQ(r.row("flowlet").bytes, 25600 * 5);
  EXPECT_EQ(r.row("flowcell").bytes, 25600 * 2);
  in.set("key_bytes", "13");  // the key adds to every Flowcut entry, not to flowlet/flowcell state
  const SizeResult k = compute(in);
  EXPECT_EQ(k.row("full_switch").bytes_per_entry, 24);
  EXPECT_EQ(k.row("ingress_only").bytes_per_entry, 23);
  EXPECT_EQ(k.row("flowlet").bytes_per_entry, 5);
}

TEST(SizeAnalytic, LinearInLatency) {
  SizeInputs in = inputs(kBase);
  in.set("flows_per_host", "1000000");
  double first = 0;
  for (int m = 1; m <= 8; ++m) {
    in.set("latency_us", std::to_string(4.096 * m));
    const double mem = compute(in).row("full_switch").bytes;
    if (m == 1) first = mem;
    EXPECT_NEAR(mem, first * m, 11.0 * m) << "L x" << m;  // up to one entry of rounding per step
  }
}

TEST(SizeAnalytic, FlatInFlowsOnceAboveBandwidthDelay) {
  SizeInputs in = inputs(kBase);  // B*L/M = 25
  std::vector<double> mem;
  for (int f : {1, 5, 10, 20, 25, 26, 50, 100, 1000, 100000}) {
    in.set("flows_per_host", std::to_string(f));
    mem.push_back(compute(in).row("ingress_only").bytes);
    if (f <= 25) {
      EXPECT_EQ(mem.back(), 8.0 * f * 10) << "F=" << f;
    } else {
      EXPECT_EQ(mem.back(), 8.0 * 25 * 10) << "F=" << f;
    }
  }
  for (std::size_t i = 1; i < mem.size(); ++i) EXPECT_GE(mem[i], mem[i - 1]);
}

TEST(SizeAnalytic, FlowsailEntryBitsMatchTheBlockAndLoadFactor) {
  Rng rng(1, 0);
  FlowsailConfig c;
  Flowsail block(c, rng);
  EXPECT_EQ(flowsail_entry_bits(c.queues, c.size_bits, c.pause_bits), block.nft_entry_bits());
  // FlowSail paper: 10K flows of 50-bit entries is about 64 KB; at a 70% cuckoo load about 100 KB.
  SizeInputs in = inputs({"flowsail.flows=10000", "flowsail.load_factor=0.7", "flowsail.queues=2", "flowsail.size_bits=9",
                          "flowsail.pause_bits=8"});  // 32 + 1 + 9 + 8 = 50 bits
  const SizeResult result_1 = compute(in);

  const SizeRow& fs = result_1.row("flowsail");
  EXPECT_EQ(fs.bytes_per_entry * 8, 50);
  EXPECT_EQ(fs.entries, 14286);
  EXPECT_NEAR(fs.bytes, 14286 * 50 / 8.0, 1e-6);
  EXPECT_GT(fs.bytes, 62500);
  EXPECT_LT(fs.bytes, 100 * 1024);
}

TEST(SizeAnalytic, ReorderStaticAndDynamic) {
  // Martinez et al.: 128 connections x 32 KB static = 4 MB; dynamic pool of 256 KB.
  SizeInputs in = inputs({"reorder.connections=128", "reorder.buffer_bytes=32768", "reorder.pool_bytes=262144"});
  const SizeResult r = compute(in);
  EXPECT_EQ(r.row("reorder_static").bytes, 4 * 1024 * 1024);
  EXPECT_EQ(r.row("reorder_dynamic").bytes, 256 * 1024);
  // Defaults: hosts - 1 connections, one host's bandwidth-delay product each.
  const SizeResult d = compute(inputs(kBase));
  EXPECT_EQ(d.row("reorder_static").flows, 1023);
  EXPECT_EQ(d.row("reorder_static").bytes_per_entry, 102400);
  EXPECT_EQ(d.row("reorder_dynamic").bytes, 102400);
}

TEST(SizeAnalytic, SeriesAndAliases) {
  const SizeInputs in = inputs(kBase);
  const Series s = compute_series(in, "rtt_us=4.096,8.192");
  ASSERT_EQ(s.results.size(), 2u);
  EXPECT_NEAR(s.results[1].active_flows, 2 * s.results[0].active_flows, 1e-6);
  EXPECT_TRUE(to_json(in, s)["series"].is_array());
}

TEST(SizeAnalytic, BadInputNamesTheKey) {
  SizeInputs in;
  auto message = [&](const std::string& a) {
    try {
      in.set_assignment(a);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("hostz=4").find("'hostz'"), std::string::npos);
  EXPECT_NE(message("hosts=many").find("'hosts'"), std::string::npos);
  EXPECT_NE(message("hosts=1.5").find("not an integer"), std::string::npos);
  EXPECT_NE(message("link_gbps=-1").find("'link_gbps'"), std::string::npos);
  EXPECT_NE(message("flowsail.load_factor=0").find("outside"), std::string::npos);
  EXPECT_THROW(compute_series(in, "mtu_bytes=4096,x"), InputError);
}

}  // namespace
}  // namespace netasic::sizing
