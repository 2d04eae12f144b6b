// Reorder buffer RTL against netasic::ReorderBuffer (static partition): arrivals around each connection's
// expected sequence number (in order, early, already stored, old), multi-unit packets, 3- and 4-bit
// sequence numbers that wrap many times, tiny partitions so that rejections (NACK of later packets,
// NACK of the arrival) happen, random request idle cycles and event back-pressure. Every event (kind,
// sn, last flag) is compared in order, and the cycle of each: the first at the model's latency, the
// next ones on consecutive accepted cycles.
#include <gtest/gtest.h>

#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "Vrb_c2_s3_b2.h"
#include "Vrb_c4_s4_b4_u3.h"
#include "Vrb_c64_s16_b8.h"
#include "rtl_harness.h"
#include "tlm/blocks/reorder_buffer.h"

namespace netasic {
namespace {

using rtl_test::Clocked;
using rtl_test::LatencyTrace;
using rtl_test::Pacer;

struct Point {
  const char* name;
  unsigned connections, seq_bits;
  std::uint32_t buffer_units, max_packet_units;
};

std::string show(unsigned kind, std::uint32_t sn, bool last) {
  std::ostringstream s;
  s << to_string(static_cast<ReorderEventKind>(kind)) << ' ' << sn << (last ? " (last)" : "");
  return s.str();
}

template <class V>
void run_point(const Point& p, std::uint64_t seed, int requests, double go, double ready) {
  ReorderBufferConfig cfg;
  cfg.connections = p.connections;
  cfg.seq_bits = p.seq_bits;
  cfg.buffer_units = p.buffer_units;
  cfg.max_packet_units = p.max_packet_units;
  ReorderBuffer model(cfg);
  Clocked<V> sim(p.name);
  V& d = sim.dut();
  LatencyTrace trace("reorder_buffer", p.name);
  Pacer pace(seed, go, ready);
  Rng rng(seed, 3);
  const std::uint32_t mask = p.seq_bits == 32 ? ~0u : (1u << p.seq_bits) - 1u;
  const std::uint32_t half = 1u << (p.seq_bits - 1);
  const std::uint32_t early_span = std::min<std::uint32_t>(half - 1, 2 * p.buffer_units + 1);

  sim.reset();
  d.req_valid_i = 0;
  bool holding = false;
  unsigned conn = 0;
  std::uint32_t sn = 0, units = 1;
  std::deque<ReorderEvent> events;  // of the request in flight
  std::uint64_t accept = 0;
  std::string what;
  bool first = true;
  int issued = 0, answered = 0;
  std::uint64_t follower_delivers = 0, evictions = 0, refused = 0, old_acks = 0, dup_stored = 0, stored = 0;
  while (answered < requests) {
    if (!holding && events.empty() && issued < requests && pace.start()) {
      conn = static_cast<unsigned>(rng.below(p.connections));
      const std::uint32_t e = model.expected(conn);
      const auto r = rng.below(10);
      if (r < 3) {
        sn = e;  // in order
      } else if (r < 8) {
        sn = e + 1 + static_cast<std::uint32_t>(rng.below(early_span));  // early (or already stored)
      } else {
        sn = e - 1 - static_cast<std::uint32_t>(rng.below(half));  // old
      }
      sn &= mask;
      units = 1 + static_cast<std::uint32_t>(rng.below(p.max_packet_units));
      holding = true;
    }
    d.req_valid_i = holding;
    d.req_conn_i = conn;
    d.req_sn_i = sn;
    d.req_units_i = units;
    d.rsp_ready_i = pace.accept();
    sim.settle();
    const std::uint64_t now = sim.cycle();

    if (!events.empty() && now >= accept + model.config().latency) {
      const ReorderEvent& ev = events.front();
      const bool last = events.size() == 1;
      ASSERT_TRUE(d.rsp_valid_o) << what << " accepted at " << accept << ": model event " << show(unsigned(ev.kind), ev.sn, last)
                                 << " due at cycle " << now << " | rtl rsp_valid low" << sim.vcd_hint();
      if (first) {
        first = false;
        ASSERT_TRUE(trace.record("arrive", accept, now, model.config().latency)) << sim.vcd_hint();
      }
      ASSERT_TRUE(unsigned(d.rsp_kind_o) == unsigned(ev.kind) && d.rsp_sn_o == ev.sn && bool(d.rsp_last_o) == last)
          << what << " accepted at " << accept << ", event at cycle " << now << ": model "
          << show(unsigned(ev.kind), ev.sn, last) << " | rtl " << show(d.rsp_kind_o, d.rsp_sn_o, d.rsp_last_o)
          << sim.vcd_hint();
      if (d.rsp_ready_i) {
        events.pop_front();
        if (events.empty()) ++answered;
      }
    } else {
      ASSERT_FALSE(d.rsp_valid_o) << "event at cycle " << now << " with none due (last request " << what
                                  << " accepted at " << accept << ")" << sim.vcd_hint();
    }
    if (holding && d.req_ready_o) {
      ASSERT_TRUE(events.empty()) << "request port ready while events are outstanding" << sim.vcd_hint();
      const std::uint32_t off = (sn - model.expected(conn)) & mask;
      const auto rejections = model.rejections();
      const auto used_before = model.used_units(conn);
      const auto ev = model.arrive(conn, sn, units);
      events.assign(ev.begin(), ev.end());
      std::ostringstream s;
      s << "arrive(conn " << conn << ", sn " << sn << ", units " << units << ") [expected " << (sn - off) << ']';
      what = s.str();
      accept = now;
      first = true;
      holding = false;
      ++issued;
      unsigned delivers = 0;
      for (const auto& x : ev) delivers += x.kind == ReorderEventKind::deliver;
      if (delivers > 1) follower_delivers += delivers - 1;
      if (off >= half) ++old_acks;
      if (ev.size() == 1 && ev[0].kind == ReorderEventKind::nack) ++refused;
      if (ev.size() > 1 && ev[0].kind == ReorderEventKind::nack) evictions += model.rejections() - rejections;
      if (ev.back().kind == ReorderEventKind::stored) ++(ev.size() == 1 && model.used_units(conn) == used_before ? dup_stored : stored);
    }
    sim.edge();
    ASSERT_LT(sim.cycle(), static_cast<std::uint64_t>(requests) * 60 + 1000) << "no progress";
  }
  EXPECT_GT(follower_delivers, 0u);
  EXPECT_GT(evictions, 0u);
  EXPECT_GT(refused, 0u);
  EXPECT_GT(old_acks, 0u);
  EXPECT_GT(stored, 0u);
  EXPECT_GT(dup_stored, 0u);
  // Short sequence numbers wrap: more packets delivered than the sequence space of every connection.
  if (p.seq_bits <= 4) {
    EXPECT_GT(model.delivered(), std::uint64_t{p.connections} << p.seq_bits);
  }
}

TEST(RtlReorderBuffer, Conn2Seq3Units2) { run_point<Vrb_c2_s3_b2>({"c2_s3_b2", 2, 3, 2, 1}, 1, 40000, 0.7, 0.6); }
TEST(RtlReorderBuffer, Conn2Seq3FullRate) { run_point<Vrb_c2_s3_b2>({"c2_s3_b2_full_rate", 2, 3, 2, 1}, 2, 40000, 1.0, 1.0); }
TEST(RtlReorderBuffer, Conn4Seq4Units4Multi) {
  run_point<Vrb_c4_s4_b4_u3>({"c4_s4_b4_u3", 4, 4, 4, 3}, 3, 40000, 0.8, 0.7);
}
TEST(RtlReorderBuffer, Conn64Seq16Units8) {
  run_point<Vrb_c64_s16_b8>({"c64_s16_b8", 64, 16, 8, 1}, 4, 40000, 0.8, 0.7);
}

}  // namespace
}  // namespace netasic
