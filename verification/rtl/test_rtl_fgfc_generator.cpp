// FGFC frame generator RTL against netasic::FgfcGenerator: XOFF / XOFF-with-credit / XON requests from a
// flow pool larger than the slot count (full), repeated flows (coalescing, the gap), random request idle
// cycles, response back-pressure and a link that takes frames only some cycles. Every cycle the frame
// port is compared with the model (valid against next_due, and every emitted frame field by field);
// every response status and its cycle are compared.
#include <gtest/gtest.h>

#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "Vfg_s16_g64.h"
#include "Vfg_s2_g1.h"
#include "Vfg_s4_g5.h"
#include "rtl_harness.h"
#include "tlm/blocks/fgfc.h"

namespace netasic {
namespace {

using rtl_test::Clocked;
using rtl_test::LatencyTrace;
using rtl_test::Pacer;

struct Point {
  const char* name;
  unsigned slots;
  std::uint32_t gap;
};

const char* kind(const FgfcFrame& f) { return !f.xoff ? "XON" : f.credit ? "XOFF+credit" : "XOFF"; }

std::string show(const FgfcFrame& f) {
  std::ostringstream s;
  s << kind(f) << "{flow " << std::hex << f.flow_id << std::dec << " period " << f.period << " credit " << f.credit
    << "}";
  return s.str();
}

struct Exp {
  FgfcFrame req;
  std::uint64_t accept;
  FgfcRequestStatus status;
};

template <class V>
void run_point(const Point& p, std::uint64_t seed, int requests, double go, double ready, double link) {
  FgfcGeneratorConfig cfg;
  cfg.slots = p.slots;
  cfg.gap = p.gap;
  FgfcGenerator model(cfg);
  Clocked<V> sim(p.name);
  V& d = sim.dut();
  LatencyTrace trace("fgfc_generator", p.name);
  Pacer pace(seed, go, ready);
  Pacer link_pace(seed + 1000, link, link);
  Rng rng(seed, 3);
  std::vector<std::uint32_t> pool;
  for (unsigned i = 0; i < p.slots * 2 + 1; ++i) pool.push_back(static_cast<std::uint32_t>(rng.next()));
  pool[1] = pool[0] ^ 1u;  // ids differing in one bit

  // Directed prologue: every slot filled back to back plus one (FULL), then one flow hammered
  // (COALESCED inside its gap, ACCEPTED when its frame left in the same cycle).
  std::deque<FgfcFrame> directed;
  for (unsigned i = 0; i <= p.slots; ++i) directed.push_back({pool[i], true, 100, 0});
  for (int i = 0; i < 8; ++i) directed.push_back({pool[0], i % 2 == 0, static_cast<std::uint16_t>(i % 2 ? 0 : 7), 5});

  sim.reset();
  std::deque<Exp> expected;
  bool holding = false, seen = false;
  FgfcFrame cur{};
  int issued = 0, answered = 0;
  std::uint64_t by_status[3] = {0, 0, 0}, frames = 0, link_stalls = 0;
  while (answered < requests) {
    if (!holding && issued < requests && (!directed.empty() || pace.start())) {
      if (!directed.empty()) {
        cur = directed.front();
        directed.pop_front();
      } else {
        cur.flow_id = pool[rng.below(pool.size())];
        const auto r = rng.below(10);
        cur.xoff = r < 6;
        cur.period = cur.xoff ? static_cast<std::uint16_t>(1 + rng.below(65535)) : 0;
        cur.credit = cur.xoff && r >= 3 ? static_cast<std::uint32_t>(rng.below(FgfcGenerator::kCreditMax + 1)) : 0;
      }
      holding = true;
    }
    d.req_valid_i = holding;
    d.req_flow_id_i = cur.flow_id;
    d.req_xoff_i = cur.xoff;
    d.req_period_i = cur.period;
    d.req_credit_i = cur.credit;
    d.rsp_ready_i = pace.accept();
    const bool link_ready = link_pace.accept();
    d.frm_ready_i = link_ready;
    sim.settle();
    const std::uint64_t now = sim.cycle();

    // Frame port first (the order the model defines).
    const auto due = model.next_due(now);
    const bool model_has = due && *due == now;
    ASSERT_EQ(bool(d.frm_valid_o), model_has) << "frame valid at cycle " << now << ": model "
                                              << (due ? "due at " + std::to_string(*due) : "nothing pending")
                                              << " | rtl frm_valid " << unsigned(d.frm_valid_o) << sim.vcd_hint();
    if (link_ready) {
      const auto f = model.next_frame(now);
      if (f) {
        const FgfcFrame got{d.frm_flow_id_o, bool(d.frm_xoff_o), d.frm_period_o, d.frm_credit_o};
        ASSERT_EQ(got, *f) << "frame at cycle " << now << ": model " << show(*f) << " | rtl " << show(got)
                           << sim.vcd_hint();
        ++frames;
      }
    } else if (model_has) {
      ++link_stalls;
    }

    if (d.rsp_valid_o) {
      ASSERT_FALSE(expected.empty()) << "response without a request" << sim.vcd_hint();
      const Exp& e = expected.front();
      if (!seen) {
        seen = true;
        ASSERT_TRUE(trace.record("request", e.accept, now, model.config().request_latency))
            << show(e.req) << " accepted at " << e.accept << ": latency " << now - e.accept << " != model "
            << model.config().request_latency << sim.vcd_hint();
      }
      ASSERT_EQ(static_cast<unsigned>(d.rsp_status_o), static_cast<unsigned>(e.status))
          << show(e.req) << " accepted at " << e.accept << ": model " << to_string(e.status) << " | rtl status "
          << unsigned(d.rsp_status_o) << sim.vcd_hint();
      if (d.rsp_ready_i) {
        expected.pop_front();
        seen = false;
        ++answered;
      }
    }
    if (holding && d.req_ready_o) {
      const FgfcRequestStatus st = model.request(now, cur);
      ++by_status[static_cast<unsigned>(st)];
      expected.push_back({cur, now, st});
      holding = false;
      ++issued;
    }
    sim.edge();
    ASSERT_LT(sim.cycle(), static_cast<std::uint64_t>(requests) * 40 + 1000) << "no progress";
  }
  EXPECT_GT(by_status[static_cast<unsigned>(FgfcRequestStatus::accepted)], 0u);
  EXPECT_GT(by_status[static_cast<unsigned>(FgfcRequestStatus::coalesced)], 0u);
  EXPECT_GT(by_status[static_cast<unsigned>(FgfcRequestStatus::full)], 0u);
  EXPECT_GT(frames, 0u);
  EXPECT_EQ(frames, model.frames());
  if (link < 1.0) {
    EXPECT_GT(link_stalls, 0u);
  }
}

TEST(RtlFgfcGenerator, Slots4Gap5) { run_point<Vfg_s4_g5>({"s4_g5", 4, 5}, 1, 40000, 0.7, 0.7, 0.5); }
TEST(RtlFgfcGenerator, Slots4Gap5FullRate) { run_point<Vfg_s4_g5>({"s4_g5_full_rate", 4, 5}, 2, 40000, 1.0, 1.0, 1.0); }
TEST(RtlFgfcGenerator, Slots2Gap1) { run_point<Vfg_s2_g1>({"s2_g1", 2, 1}, 3, 40000, 0.8, 0.6, 0.3); }
TEST(RtlFgfcGenerator, Slots16Gap64) { run_point<Vfg_s16_g64>({"s16_g64", 16, 64}, 4, 40000, 0.9, 0.8, 0.2); }

}  // namespace
}  // namespace netasic
