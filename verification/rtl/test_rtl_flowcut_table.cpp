// Flowcut table RTL (both implementations, and the line-rate hashed table) against netasic::FlowcutTable:
// constrained-random operations from a small key pool (so tables fill, sets overflow and 4-bit in-flight
// counters saturate), random request idle cycles and response back-pressure, every response and its
// arrival cycle compared. The line-rate table takes a request every cycle with up to 3 in flight; its
// runs add streams on one or two sets and chains of operations on the entry the previous one modified.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "Vfc_cam4.h"
#include "Vfc_cam16.h"
#include "Vfc_hash4.h"
#include "Vfc_hash64.h"
#include "Vfc_hlr4.h"
#include "Vfc_hlr64.h"
#include "rtl_harness.h"
#include "tlm/blocks/flowcut_table.h"

namespace netasic {
namespace {

using rtl_test::Clocked;
using rtl_test::LatencyTrace;
using rtl_test::Pacer;

enum Op : unsigned { kLookup = 0, kInsert, kAdd, kAck, kDelete, kRead, kWrite };
enum St : unsigned { kOk = 0, kMiss, kFull, kSetFull, kExists, kSaturated, kInvalid, kUnderflow };
const char* const kOpName[] = {"lookup", "insert", "add_bytes", "ack_subtract", "delete", "read", "write"};
const char* const kStName[] = {"OK", "MISS", "FULL", "SET_FULL", "EXISTS", "SATURATED", "INVALID", "UNDERFLOW"};

struct Point {
  const char* name;
  bool hashed;
  std::uint32_t entries;
  unsigned ways;
  unsigned key_bits;
  unsigned inflight_bits;
  bool full_switch;
  bool line_rate = false;  // flowcut_table_hashed_lr: one request per cycle unless a response is held
};

// Stimulus: random over the whole key pool; keys of two sets only (index operations on their entries);
// or chains, where most requests address the entry the request before them addressed (same key, or its
// index), which the line-rate table still holds in flight.
enum class Stim { random, same_set, chain };

struct Request {
  Op op;
  WideKey key;
  std::uint32_t index = 0, bytes = 0;
  std::uint16_t out_port = 0, in_port = 0, rtt_avg = 0, last_rtt = 0, rtt_diff = 0;
  bool drain = false;
};

// What the RTL must answer; `check_*` say which fields the operation defines.
struct Expect {
  Request req;
  std::uint64_t accept_cycle;
  unsigned status;
  std::uint32_t index = 0, inflight = 0;
  bool deleted = false;
  FlowcutEntry entry{};
  bool check_index = false, check_inflight = false, check_deleted = false, check_entry = false, check_ports = false;
};

struct Got {
  unsigned status;
  std::uint32_t index, inflight;
  bool deleted;
  std::uint16_t out_port, in_port, rtt_avg, last_rtt, rtt_diff;
  bool drain;
};

Expect model_answer(FlowcutTable& t, const Request& r, std::uint64_t cycle) {
  Expect e{r, cycle, kOk};
  switch (r.op) {
    case kLookup: {
      auto hit = t.lookup(r.key);
      e.status = hit ? kOk : kMiss;
      if (hit) {
        e.index = *hit;
        e.entry = t.read(*hit);
        e.check_index = e.check_ports = true;
        e.inflight = e.entry.inflight;
        e.check_inflight = true;
      }
      break;
    }
    case kInsert: {
      auto res = t.insert(r.key, r.out_port, r.in_port);
      e.status = res.status == InsertStatus::ok       ? kOk
                 : res.status == InsertStatus::exists ? kExists
                 : res.status == InsertStatus::full   ? kFull
                                                      : kSetFull;
      e.index = res.index;
      e.check_index = e.status == kOk || e.status == kExists;
      break;
    }
    case kAdd: {
      auto res = t.add_bytes(r.index, r.bytes);
      e.status = res.status == AddStatus::ok ? kOk : res.status == AddStatus::saturated ? kSaturated : kInvalid;
      e.inflight = res.inflight;
      e.check_inflight = e.status != kInvalid;
      break;
    }
    case kAck: {
      auto res = t.ack_subtract(r.key, r.bytes);
      e.status = !res.found ? kMiss : res.underflow ? kUnderflow : kOk;
      e.inflight = res.remaining;
      e.deleted = res.deleted;
      e.check_inflight = e.check_deleted = res.found;
      break;
    }
    case kDelete:
      e.status = t.erase(r.key) ? kOk : kMiss;
      break;
    case kRead: {
      const auto en = t.read(r.index);
      e.status = en.valid ? kOk : kInvalid;
      e.entry = en;
      e.check_entry = e.check_ports = en.valid;
      break;
    }
    case kWrite: {
      const bool ok = t.set_rtt(r.index, r.rtt_avg, r.last_rtt, r.rtt_diff);
      if (ok) t.set_drain(r.index, r.drain);
      e.status = ok ? kOk : kInvalid;
      break;
    }
  }
  return e;
}

std::string describe(const Expect& e, const Got& g) {
  std::ostringstream s;
  s << kOpName[e.req.op] << " (key " << std::hex << e.req.key.hi << ':' << e.req.key.lo << std::dec << " index "
    << e.req.index << " bytes " << e.req.bytes << ") accepted at cycle " << e.accept_cycle << ": model status "
    << kStName[e.status] << " index " << e.index << " inflight " << e.inflight << " deleted " << e.deleted
    << " out " << e.entry.out_port << " in " << e.entry.in_port << " | rtl status " << kStName[g.status & 7]
    << " index " << g.index << " inflight " << g.inflight << " deleted " << g.deleted << " out " << g.out_port
    << " in " << g.in_port;
  return s.str();
}

struct Coverage {
  std::map<unsigned, std::uint64_t> status;
  std::uint64_t deleted = 0;
};

struct PipeStats {
  std::uint64_t same_set_b2b = 0;    // accepted in consecutive cycles, same set
  std::uint64_t same_entry_b2b = 0;  // same, and addressing the entry the first one addressed
  std::uint64_t max_in_flight = 0;
};

template <class V>
void run_point(const Point& p, std::uint64_t seed, int requests, double go, double ready, Coverage& cov,
               Stim stim = Stim::random, PipeStats* pipe = nullptr) {
  FlowcutTableConfig cfg;
  cfg.entries = p.entries;
  cfg.organization = p.hashed ? FlowcutOrganization::set_associative : FlowcutOrganization::fully_associative;
  cfg.ways = p.ways;
  cfg.key_bits = p.key_bits;
  cfg.inflight_bits = p.inflight_bits;
  cfg.variant = p.full_switch ? FlowcutVariant::full_switch : FlowcutVariant::nic_only;
  cfg.port_bits = 8;
  cfg.latency = FlowcutLatency::uniform(p.hashed ? 3 : 2);
  FlowcutTable model(cfg);

  Clocked<V> sim(p.name);
  V& d = sim.dut();
  LatencyTrace trace("flowcut_table", p.name);
  Pacer pace(seed, go, ready);
  Rng rng(seed, 5);

  // Key pool twice the table size: inserts hit, miss, fill the table and overflow sets.
  auto random_key = [&]() {
    if (p.key_bits == 32) return WideKey::from_id(static_cast<std::uint32_t>(rng.next()));
    FlowKey k;
    k.src_addr = static_cast<std::uint32_t>(rng.next());
    k.dst_addr = static_cast<std::uint32_t>(rng.next());
    k.src_port = static_cast<std::uint16_t>(rng.next());
    k.dst_port = 4791;
    return WideKey::from_flow(k);
  };
  std::vector<WideKey> pool;
  for (std::uint32_t i = 0; i < p.entries * 2; ++i) pool.push_back(random_key());
  if (stim == Stim::same_set) {
    // Keys of the first two sets only: 4 x ways of them, so both sets fill and overflow.
    const std::uint32_t s0 = model.set_of(pool[0]);
    std::uint32_t s1 = s0;
    std::vector<WideKey> narrow;
    for (std::uint64_t n = 0; narrow.size() < 4u * p.ways && n < 100000; ++n) {
      const WideKey k = random_key();
      const std::uint32_t s = model.set_of(k);
      if (s1 == s0 && s != s0) s1 = s;
      if (s == s0 || s == s1) narrow.push_back(k);
    }
    ASSERT_EQ(narrow.size(), 4u * p.ways);
    pool = narrow;
  }
  const std::uint32_t inflight_max = (1u << p.inflight_bits) - 1;
  auto random_bytes = [&]() -> std::uint32_t {
    switch (rng.below(4)) {
      case 0: return static_cast<std::uint32_t>(rng.below(4));
      case 1: return static_cast<std::uint32_t>(rng.below(inflight_max / 2 + 2));
      case 2: return static_cast<std::uint32_t>(rng.below(inflight_max + 2));
      default: return static_cast<std::uint32_t>(rng.below(1u << 31));
    }
  };
  auto random_request = [&]() {
    Request r;
    const auto x = rng.below(100);
    r.op = x < 28 ? kInsert : x < 45 ? kLookup : x < 62 ? kAdd : x < 80 ? kAck : x < 85 ? kDelete : x < 93 ? kRead : kWrite;
    r.key = pool[rng.below(pool.size())];
    r.index = static_cast<std::uint32_t>(rng.below(p.entries));
    r.bytes = random_bytes();
    r.out_port = static_cast<std::uint16_t>(rng.below(256));
    r.in_port = static_cast<std::uint16_t>(rng.below(256));
    r.rtt_avg = static_cast<std::uint16_t>(rng.next());
    r.last_rtt = static_cast<std::uint16_t>(rng.next());
    r.rtt_diff = static_cast<std::uint16_t>(rng.next());
    r.drain = rng.below(2) == 1;
    return r;
  };
  // The set and entry a request addresses (entry known for index operations, and for key operations
  // once the model has answered them).
  auto is_index_op = [](Op op) { return op == kAdd || op == kRead || op == kWrite; };
  auto set_of = [&](const Request& r) {
    return is_index_op(r.op) ? r.index / p.ways : model.set_of(r.key);
  };
  auto next_request = [&](const std::deque<Expect>& in_flight) {
    Request r = random_request();
    if (stim == Stim::same_set && rng.below(2) == 0) {
      // Index operations on the entries of the pool's sets.
      const auto set = set_of(Request{kLookup, pool[rng.below(pool.size())]});
      r.index = set * p.ways + static_cast<std::uint32_t>(rng.below(p.ways));
    }
    if (stim == Stim::chain && !in_flight.empty() && rng.below(10) < 7) {
      const Expect& last = in_flight.back();
      r.key = last.req.key;
      if (is_index_op(last.req.op)) {
        r.index = last.req.index;
      } else if (last.check_index) {
        r.index = last.index;
      }
    }
    return r;
  };

  sim.reset();
  d.req_valid_i = 0;
  d.rsp_ready_i = 0;
  std::deque<Expect> expected;
  bool holding = false, rsp_seen = false;
  Request cur{};
  int issued = 0, answered = 0;
  // Cycles a response was held (valid, not taken): each stalls the line-rate pipeline by one cycle.
  std::uint64_t stalls = 0;
  std::deque<std::uint64_t> stalls_at_accept;
  bool have_prev = false;
  std::uint64_t prev_cycle = 0, prev_set = 0, prev_entry = ~0ull;
  const std::uint64_t limit = static_cast<std::uint64_t>(requests) * 200 + p.entries * 4 + 1000;
  while (answered < requests) {
    if (!holding && issued < requests && pace.start()) {
      cur = next_request(expected);
      holding = true;
    }
    d.req_valid_i = holding;
    d.req_op_i = cur.op;
    rtl_test::put_key(d.req_key_i, cur.key, p.key_bits);
    d.req_index_i = cur.index;
    d.req_out_port_i = static_cast<std::uint8_t>(cur.out_port);
    d.req_in_port_i = static_cast<std::uint8_t>(cur.in_port);
    d.req_bytes_i = cur.bytes;
    d.req_rtt_avg_i = cur.rtt_avg;
    d.req_last_rtt_i = cur.last_rtt;
    d.req_rtt_diff_avg_i = cur.rtt_diff;
    d.req_drain_i = cur.drain;
    d.rsp_ready_i = pace.accept();
    sim.settle();

    if (d.rsp_valid_o) {
      ASSERT_FALSE(expected.empty()) << "response without a request" << sim.vcd_hint();
      const Expect& e = expected.front();
      Got g{d.rsp_status_o, d.rsp_index_o, d.rsp_inflight_o, d.rsp_deleted_o != 0, d.rsp_out_port_o,
            d.rsp_in_port_o, d.rsp_rtt_avg_o, d.rsp_last_rtt_o, d.rsp_rtt_diff_avg_o, d.rsp_drain_o != 0};
      if (!rsp_seen) {
        rsp_seen = true;
        const unsigned lat = p.hashed ? 3 : 2;
        // Less the cycles the pipeline stood still behind a held response (none for the one-request
        // blocks: their previous response was taken before this request was accepted).
        const std::uint64_t stalled = stalls - stalls_at_accept.front();
        ASSERT_TRUE(trace.record(kOpName[e.req.op], e.accept_cycle, sim.cycle() - stalled, lat))
            << "latency " << sim.cycle() - e.accept_cycle << " (" << stalled << " stalled) != model " << lat
            << ": " << describe(e, g) << sim.vcd_hint();
      }
      ASSERT_EQ(g.status, e.status) << describe(e, g) << sim.vcd_hint();
      if (e.check_index) {
        ASSERT_EQ(g.index, e.index) << describe(e, g) << sim.vcd_hint();
      }
      if (e.check_inflight) {
        ASSERT_EQ(g.inflight, e.inflight) << describe(e, g) << sim.vcd_hint();
      }
      if (e.check_deleted) {
        ASSERT_EQ(g.deleted, e.deleted) << describe(e, g) << sim.vcd_hint();
      }
      if (e.check_ports) {
        ASSERT_EQ(g.out_port, e.entry.out_port) << describe(e, g) << sim.vcd_hint();
        ASSERT_EQ(g.in_port, e.entry.in_port) << describe(e, g) << sim.vcd_hint();
      }
      if (e.check_entry) {
        ASSERT_EQ(g.inflight, e.entry.inflight) << describe(e, g) << sim.vcd_hint();
        ASSERT_EQ(g.rtt_avg, e.entry.rtt_avg) << describe(e, g) << sim.vcd_hint();
        ASSERT_EQ(g.last_rtt, e.entry.last_rtt) << describe(e, g) << sim.vcd_hint();
        ASSERT_EQ(g.rtt_diff, e.entry.rtt_diff_avg) << describe(e, g) << sim.vcd_hint();
        ASSERT_EQ(g.drain, e.entry.draining) << describe(e, g) << sim.vcd_hint();
      }
      if (d.rsp_ready_i) {
        ++cov.status[e.status * 8 + e.req.op];
        cov.deleted += e.deleted;
        expected.pop_front();
        stalls_at_accept.pop_front();
        rsp_seen = false;
        ++answered;
      }
    }
    if (p.line_rate && issued > 0) {
      // After the RAM clear a request is refused only while a response is held.
      ASSERT_EQ(d.req_ready_o != 0, !(d.rsp_valid_o && !d.rsp_ready_i))
          << "line-rate table refused a request without back-pressure" << sim.vcd_hint();
    }
    if (d.rsp_valid_o && !d.rsp_ready_i) ++stalls;
    if (holding && d.req_ready_o) {
      const std::uint64_t set = set_of(cur);
      expected.push_back(model_answer(model, cur, sim.cycle()));
      const Expect& e = expected.back();
      const std::uint64_t entry = is_index_op(cur.op) ? cur.index : e.check_index ? e.index : ~0ull;
      if (pipe && have_prev && prev_cycle + 1 == sim.cycle() && prev_set == set) {
        ++pipe->same_set_b2b;
        if (entry != ~0ull && entry == prev_entry) ++pipe->same_entry_b2b;
      }
      have_prev = true;
      prev_cycle = sim.cycle();
      prev_set = set;
      prev_entry = entry;
      if (pipe) pipe->max_in_flight = std::max<std::uint64_t>(pipe->max_in_flight, expected.size());
      stalls_at_accept.push_back(stalls);
      holding = false;
      ++issued;
    }
    sim.edge();
    ASSERT_LT(sim.cycle(), limit) << "no progress" << sim.vcd_hint();
  }
  EXPECT_LE(model.occupancy(), p.entries);
}

std::uint64_t count(const Coverage& c, unsigned status, unsigned op) {
  auto it = c.status.find(status * 8 + op);
  return it == c.status.end() ? 0 : it->second;
}

// The corner cases the stimulus must reach, or the test proves nothing about them.
void expect_corners(const Coverage& c, bool hashed) {
  EXPECT_GT(count(c, kFull, kInsert), 0u);
  if (hashed) {
    EXPECT_GT(count(c, kSetFull, kInsert), 0u);
  }
  EXPECT_GT(count(c, kExists, kInsert), 0u);
  EXPECT_GT(count(c, kOk, kInsert), 0u);
  EXPECT_GT(count(c, kSaturated, kAdd), 0u);
  EXPECT_GT(count(c, kInvalid, kAdd), 0u);
  EXPECT_GT(count(c, kUnderflow, kAck), 0u);
  EXPECT_GT(count(c, kOk, kAck), 0u);
  EXPECT_GT(count(c, kMiss, kLookup), 0u);
  EXPECT_GT(count(c, kOk, kLookup), 0u);
  EXPECT_GT(count(c, kOk, kRead), 0u);
  EXPECT_GT(count(c, kOk, kWrite), 0u);
  EXPECT_GT(c.deleted, 0u);
}

TEST(RtlFlowcutTable, Cam4Entries4BitCounters) {
  const Point p{"cam4", false, 4, 2, 32, 4, true};
  Coverage c;
  run_point<Vfc_cam4>(p, 1, 6000, 0.7, 0.6, c);
  expect_corners(c, false);
}
TEST(RtlFlowcutTable, Cam4NoIdleNoBackpressure) {
  const Point p{"cam4_full_rate", false, 4, 2, 32, 4, true};
  Coverage c;
  run_point<Vfc_cam4>(p, 2, 6000, 1.0, 1.0, c);
  expect_corners(c, false);
}
TEST(RtlFlowcutTable, Hashed4Entries2Ways4BitCounters) {
  const Point p{"hash4", true, 4, 2, 32, 4, true};
  Coverage c;
  run_point<Vfc_hash4>(p, 3, 6000, 0.6, 0.5, c);
  expect_corners(c, true);
}
TEST(RtlFlowcutTable, Cam16FiveTupleNicOnly) {
  const Point p{"cam16", false, 16, 4, 104, 24, false};
  Coverage c;
  run_point<Vfc_cam16>(p, 4, 8000, 0.8, 0.7, c);
  EXPECT_GT(count(c, kFull, kInsert), 0u);
  EXPECT_GT(count(c, kOk, kRead), 0u);
}
TEST(RtlFlowcutTable, Hashed64Ways4FiveTupleNicOnly) {
  const Point p{"hash64", true, 64, 4, 104, 24, false};
  Coverage c;
  run_point<Vfc_hash64>(p, 5, 12000, 0.8, 0.7, c);
  EXPECT_GT(count(c, kSetFull, kInsert), 0u);
  EXPECT_GT(count(c, kOk, kAck), 0u);
}

// ---- Line-rate hashed table (flowcut_table_hashed_lr): the same model comparison with a request every
// cycle, up to 3 in flight. Same points as the compact hashed table (hash4, hash64). ----
void expect_pipelined(const PipeStats& s) {
  EXPECT_GT(s.same_set_b2b, 0u);    // the bypass was exercised
  EXPECT_GT(s.same_entry_b2b, 0u);  // ... on the entry the request ahead modified
  EXPECT_EQ(s.max_in_flight, 3u);   // the pipeline was full
}
TEST(RtlFlowcutTable, HashedLr4FullRateChains) {
  const Point p{"hlr4_chain", true, 4, 2, 32, 4, true, true};
  Coverage c;
  PipeStats s;
  run_point<Vfc_hlr4>(p, 6, 6000, 1.0, 1.0, c, Stim::chain, &s);
  expect_corners(c, true);
  expect_pipelined(s);
}
TEST(RtlFlowcutTable, HashedLr4Backpressure) {
  const Point p{"hlr4", true, 4, 2, 32, 4, true, true};
  Coverage c;
  PipeStats s;
  run_point<Vfc_hlr4>(p, 7, 6000, 0.9, 0.6, c, Stim::random, &s);
  expect_corners(c, true);
  expect_pipelined(s);
}
TEST(RtlFlowcutTable, HashedLr64SameSetFullRate) {
  const Point p{"hlr64_same_set", true, 64, 4, 104, 24, false, true};
  Coverage c;
  PipeStats s;
  run_point<Vfc_hlr64>(p, 8, 12000, 1.0, 1.0, c, Stim::same_set, &s);
  EXPECT_GT(count(c, kSetFull, kInsert), 0u);
  EXPECT_GT(count(c, kOk, kAck), 0u);
  EXPECT_GT(count(c, kOk, kRead), 0u);
  EXPECT_GT(count(c, kOk, kWrite), 0u);
  EXPECT_GT(c.deleted, 0u);
  expect_pipelined(s);
}
TEST(RtlFlowcutTable, HashedLr64ChainsBackpressure) {
  const Point p{"hlr64_chain", true, 64, 4, 104, 24, false, true};
  Coverage c;
  PipeStats s;
  run_point<Vfc_hlr64>(p, 9, 12000, 0.95, 0.8, c, Stim::chain, &s);
  EXPECT_GT(count(c, kSetFull, kInsert), 0u);
  EXPECT_GT(count(c, kOk, kAck), 0u);
  expect_pipelined(s);
}

}  // namespace
}  // namespace netasic
