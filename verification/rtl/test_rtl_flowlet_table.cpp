// Flowlet table RTL against netasic::FlowletTable: random accesses from a key pool larger than the table
// (collisions), random check sweeps (timeouts), random candidate counts, idle cycles and back-pressure;
// port, new-flowlet flag, index and the response cycle compared for every request.
#include <gtest/gtest.h>

#include <deque>

#include "Vfl_64.h"
#include "Vfl_8.h"
#include "rtl_harness.h"
#include "tlm/blocks/flowlet_table.h"

namespace netasic {
namespace {

using rtl_test::Clocked;
using rtl_test::LatencyTrace;
using rtl_test::load_seed;
using rtl_test::Pacer;

struct Point {
  const char* name;
  std::uint32_t entries;
  unsigned key_bits, port_bits;
};

struct Req {
  bool check;
  WideKey key;
  std::uint32_t count;
};
struct Exp {
  Req req;
  std::uint64_t accept;
  FlowletResult r;
};

template <class V>
void run_point(const Point& p, std::uint64_t seed, int requests, double go, double ready) {
  FlowletTableConfig cfg;
  cfg.entries = p.entries;
  cfg.key_bits = p.key_bits;
  cfg.port_bits = p.port_bits;
  FlowletTable model(cfg);
  Rng model_rng(seed, 17);

  Clocked<V> sim(p.name);
  V& d = sim.dut();
  load_seed(d, seed, 17);
  LatencyTrace trace("flowlet_table", p.name);
  Pacer pace(seed, go, ready);
  Rng rng(seed, 3);
  std::vector<WideKey> pool;
  for (std::uint32_t i = 0; i < p.entries * 3; ++i) {
    if (p.key_bits == 32) {
      pool.push_back(WideKey::from_id(static_cast<std::uint32_t>(rng.next())));
    } else {
      FlowKey k;
      k.src_addr = static_cast<std::uint32_t>(rng.next());
      k.dst_addr = static_cast<std::uint32_t>(rng.next());
      k.src_port = static_cast<std::uint16_t>(rng.next());
      pool.push_back(WideKey::from_flow(k));
    }
  }
  sim.reset();
  d.req_valid_i = 0;
  std::deque<Exp> expected;
  bool holding = false, seen = false;
  Req cur{};
  int issued = 0, answered = 0;
  std::uint64_t new_flowlets = 0, refreshed = 0, checks = 0;
  while (answered < requests) {
    if (!holding && issued < requests && pace.start()) {
      cur.check = rng.below(12) == 0;
      cur.key = pool[rng.below(pool.size())];
      cur.count = static_cast<std::uint32_t>(1 + rng.below(1u << p.port_bits));
      holding = true;
    }
    d.req_valid_i = holding;
    d.req_op_i = cur.check;
    rtl_test::put_key(d.req_key_i, cur.key, p.key_bits);
    d.req_port_count_i = cur.count;
    d.rsp_ready_i = pace.accept();
    sim.settle();
    if (d.rsp_valid_o) {
      ASSERT_FALSE(expected.empty()) << "response without a request" << sim.vcd_hint();
      const Exp& e = expected.front();
      const char* op = e.req.check ? "check" : "access";
      const std::uint64_t lat = e.req.check ? model.check_latency() : model.access_latency();
      if (!seen) {
        seen = true;
        ASSERT_TRUE(trace.record(op, e.accept, sim.cycle(), lat))
            << op << " accepted at " << e.accept << ": latency " << sim.cycle() - e.accept << " != model " << lat
            << sim.vcd_hint();
      }
      if (!e.req.check) {
        ASSERT_EQ(d.rsp_new_flowlet_o, e.r.new_flowlet)
            << "access accepted at " << e.accept << " key " << std::hex << e.req.key.lo << std::dec << " model port "
            << e.r.port << " new " << e.r.new_flowlet << " | rtl port " << unsigned(d.rsp_port_o) << " new "
            << unsigned(d.rsp_new_flowlet_o) << sim.vcd_hint();
        ASSERT_EQ(d.rsp_port_o, e.r.port) << "access accepted at " << e.accept << " (count " << e.req.count << ")"
                                          << sim.vcd_hint();
        ASSERT_EQ(d.rsp_index_o, e.r.index) << "access accepted at " << e.accept << sim.vcd_hint();
      }
      if (d.rsp_ready_i) {
        expected.pop_front();
        seen = false;
        ++answered;
      }
    }
    if (holding && d.req_ready_o) {
      Exp e{cur, sim.cycle(), {}};
      if (cur.check) {
        model.check();
        ++checks;
      } else {
        e.r = model.access(cur.key, cur.count, model_rng);
        (e.r.new_flowlet ? new_flowlets : refreshed) += 1;
      }
      expected.push_back(e);
      holding = false;
      ++issued;
    }
    sim.edge();
    ASSERT_LT(sim.cycle(), static_cast<std::uint64_t>(requests) * (p.entries + 60) + 1000) << "no progress";
  }
  EXPECT_GT(new_flowlets, 0u);
  EXPECT_GT(refreshed, 0u);
  EXPECT_GT(checks, 0u);
  EXPECT_GT(model.collisions(), 0u);
}

TEST(RtlFlowletTable, Entries8PortBits3) { run_point<Vfl_8>({"e8", 8, 32, 3}, 1, 5000, 0.7, 0.6); }
TEST(RtlFlowletTable, Entries8FullRate) { run_point<Vfl_8>({"e8_full_rate", 8, 32, 3}, 2, 5000, 1.0, 1.0); }
TEST(RtlFlowletTable, Entries64FiveTuple) { run_point<Vfl_64>({"e64", 64, 104, 8}, 3, 5000, 0.8, 0.7); }

}  // namespace
}  // namespace netasic
